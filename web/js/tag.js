// A tag's page (#/tag/NAME): its posts as a grid, newest first, and how many there are once
// every page is in.
import { api } from './api.js';
import { postTile } from './card.js';
import { count, cursorPager, h, replace } from './dom.js';

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
  replace(root, h('h1', { tabindex: '-1' }, `#${tag}`), total, grid, sentinel);
  return stop;
}
