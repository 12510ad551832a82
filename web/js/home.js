// Home: the home timeline as cards, paged by the API's `next` cursor as the reader scrolls,
// and a "new posts" banner fed by the live stream (it slides in from the top; choosing it
// puts the new posts on top, like pulling to refresh). Above the posts, "Suggested for you": on a
// new account's empty Home, that is the screen (with no "You're all caught up" under nothing).
// At the very top, the stories row (stories.js).
import { api } from './api.js';
import { postCard } from './card.js';
import { count, cursorPager, h, replace, scrollBehavior } from './dom.js';
import { suggestionsPanel } from './people.js';
import { storiesRow } from './stories.js';

export function render(root, _route, app) {
  document.title = 'Home · Timeline';
  const feed = h('div', { class: 'feed' });
  const sentinel = h('div', { class: 'more' });
  const banner = h('button', { type: 'button', class: 'new-posts', hidden: true, 'aria-live': 'polite' });
  const shown = new Set();
  const waiting = new Map(); // id → post, from the stream

  const add = (posts, where) => {
    const cards = [];
    for (const post of posts) {
      if (shown.has(post.id)) continue;
      shown.add(post.id);
      waiting.delete(post.id);
      cards.push(postCard(post));
    }
    if (where === 'top') feed.prepend(...cards);
    else feed.append(...cards);
  };

  const updateBanner = () => {
    for (const id of waiting.keys()) if (shown.has(id)) waiting.delete(id);
    banner.hidden = waiting.size === 0;
    replace(banner, h('span', { class: 'arrow', 'aria-hidden': 'true' }, '↑'), ` ${count(waiting.size, 'new post')}`);
  };

  banner.addEventListener('click', () => {
    banner.classList.add('refreshing');
    const posts = [...waiting.values()].sort((a, b) => (a.id < b.id ? 1 : -1));
    add(posts, 'top');
    updateBanner();
    banner.classList.remove('refreshing');
    empty.hidden = shown.size > 0;
    sentinel.hidden = false;
    window.scrollTo({ top: 0, behavior: scrollBehavior() });
    feed.querySelector('article a')?.focus({ preventScroll: true });
  });

  const onPost = (event) => {
    const post = event.detail;
    if (shown.has(post.id)) return;
    waiting.set(post.id, post);
    updateBanner();
  };
  const onRemoved = (event) => {
    const id = event.detail.post;
    waiting.delete(id);
    updateBanner();
    feed.querySelector(`[data-post="${CSS.escape(id)}"]`)?.remove();
    shown.delete(id);
  };
  // After a dropped stream, look for posts that came meanwhile.
  const onReconnect = async () => {
    try {
      const page = await api.timeline();
      for (const post of page.items) if (!shown.has(post.id)) waiting.set(post.id, post);
      updateBanner();
    } catch {
      // the next reconnect tries again
    }
  };
  app.addEventListener('post', onPost);
  app.addEventListener('removed', onRemoved);
  app.addEventListener('reconnect', onReconnect);

  const empty = h('div', { class: 'empty', hidden: true },
    h('p', {}, 'Your home timeline is empty.'),
    h('p', {}, h('a', { href: '#/search' }, 'Find people to follow'), ' or ', h('a', { href: '#/new' }, 'share a photo'), '.'));

  const suggestions = suggestionsPanel();
  // The row loads once the feed's first page is in: the feed is asked for first, waiting on nothing.
  const stories = storiesRow(app.me);
  let storiesAsked = false;
  replace(root,
    h('h1', { class: 'visually-hidden' }, 'Home'),
    stories,
    banner,
    empty,
    suggestions,
    feed,
    sentinel);

  const stopPager = cursorPager(sentinel, api.timeline, (page) => {
    if (!storiesAsked) {
      storiesAsked = true;
      stories.load();
    }
    suggestions.load();
    add(page.items, 'bottom');
    empty.hidden = shown.size > 0;
    // Nothing at all: no "caught up" line (the pager writes it after this page).
    sentinel.hidden = shown.size === 0 && !page.next;
  });

  return () => {
    stopPager();
    app.removeEventListener('post', onPost);
    app.removeEventListener('removed', onRemoved);
    app.removeEventListener('reconnect', onReconnect);
  };
}
