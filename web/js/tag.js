// A tag's page (#/tag/NAME): its posts as a grid, newest first, and how many there are once
// every page is in; signed in, a Follow button (a followed tag's public posts come into Home)
// and the hashtags one follows, each a link to its page.
import { api, currentSession } from './api.js';
import { postTile } from './card.js';
import { count, cursorPager, h, replace, toggle } from './dom.js';
import { followedTagsSection } from './followedtags.js';

export function render(root, { params: [raw] }) {
  const tag = raw.replace(/^#/, '').toLowerCase();
  document.title = `#${tag} · Timeline`;
  const total = h('p', { class: 'muted tag-count', role: 'status' }, 'Loading posts…');
  const grid = h('ul', { class: 'grid' });
  const sentinel = h('div', { class: 'more' });
  let found = 0;
  const stop = cursorPager(sentinel, (before) => api.hashtag(tag, before), (page) => {
    for (const post of page.items) grid.append(postTile(post));
    found += page.items.length;
    total.textContent = page.next ? `${found}+ posts` : found === 0 ? 'No posts yet.' : count(found, 'post');
  }, { endText: '' });
  const header = [h('h1', { tabindex: '-1' }, `#${tag}`)];
  if (currentSession()) {
    let following = false;
    const button = h('button', { type: 'button', class: 'secondary follow-tag', disabled: true }, 'Follow');
    const followed = followedTagsSection();
    const draw = () => {
      button.textContent = following ? 'Unfollow' : 'Follow';
      button.setAttribute('aria-pressed', String(following));
    };
    toggle(button, {
      isOn: () => following,
      set: async (wanted) => {
        await (wanted ? api.followTag(tag) : api.unfollowTag(tag));
        following = wanted;
        followed.reload();
      },
      render: draw,
    });
    api.followsTag(tag).then((answer) => {
      following = answer.follows === true;
      button.disabled = false;
      draw();
    }).catch(() => { button.disabled = false; });
    header.push(h('p', { class: 'hint' }, 'Follow it to see its public posts in Home.'), button, followed.element);
  }
  replace(root, ...header, total, grid, sentinel);
  return stop;
}
