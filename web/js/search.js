// Search: people by the start of their username, or posts by #hashtag; and, signed in, Find
// friends by email.
import { api, currentSession } from './api.js';
import { postTile } from './card.js';
import { count, h, pager, replace, userLink } from './dom.js';
import { findFriendsForm } from './people.js';

export function render(root, { query }, app) {
  document.title = 'Search · Timeline';
  const input = h('input', {
    id: 'search', name: 'q', type: 'search', autocomplete: 'off', autocapitalize: 'none', spellcheck: 'false',
    placeholder: 'username or #hashtag', value: query.get('q') || '', 'aria-describedby': 'search-hint',
  });
  const form = h('form', { role: 'search', class: 'search-form' },
    h('label', { for: 'search' }, 'Search'),
    input,
    h('p', { id: 'search-hint', class: 'hint' }, 'People by the start of their username, or posts by #hashtag.'));
  const status = h('p', { class: 'status', role: 'status' });
  const results = h('div', { class: 'results' });
  const sentinel = h('div', { class: 'more' });
  let stopPager = null;
  let timer = null;

  const run = () => {
    stopPager?.();
    const text = input.value.trim();
    replace(results);
    replace(sentinel);
    status.textContent = '';
    if (text.startsWith('#')) {
      const tag = text.slice(1);
      if (!tag) return;
      const grid = h('ul', { class: 'grid' });
      results.append(grid);
      let next;
      let first = true;
      let found = 0;
      stopPager = pager(sentinel, async () => {
        const page = await api.hashtag(tag, first ? undefined : next);
        first = false;
        for (const post of page.items) grid.append(postTile(post));
        found += page.items.length;
        status.textContent = next || page.next ? `Posts tagged #${tag}` : `${count(found, 'post')} tagged #${tag}`;
        next = page.next;
        return Boolean(next);
      }, { endText: '' });
    } else {
      const people = h('ul', { class: 'people' });
      results.append(people);
      let next;
      let first = true;
      let found = 0;
      stopPager = pager(sentinel, async () => {
        const page = await api.searchUsers(text, first ? undefined : next);
        first = false;
        for (const user of page.items) {
          people.append(h('li', {},
            h('span', { class: 'avatar small', 'aria-hidden': 'true' }, user.username.slice(0, 1).toUpperCase()),
            h('span', {}, userLink(user.username), user.bio ? h('span', { class: 'muted bio-line' }, user.bio) : null)));
        }
        found += page.items.length;
        status.textContent = found === 0 ? 'Nobody found.' : text ? `People whose username starts with “${text}”` : 'People on Timeline';
        next = page.next;
        return Boolean(next);
      }, { endText: '' });
    }
  };

  input.addEventListener('input', () => {
    clearTimeout(timer);
    timer = setTimeout(() => {
      history.replaceState(null, '', `#/search${input.value ? `?q=${encodeURIComponent(input.value)}` : ''}`);
      run();
    }, 250);
  });
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    clearTimeout(timer);
    run();
  });

  replace(root, h('h1', { class: 'visually-hidden' }, 'Search'), form, currentSession() ? findFriendsForm() : null,
    status, results, sentinel);
  run();
  if (!query.get('q')) input.focus();
  return () => {
    clearTimeout(timer);
    stopPager?.();
  };
}
