// Search: what trends now (before anything is typed), people by the start of their username (a
// leading @ ignored), hashtags by their start (with or without #; each links to its tag page), or posts near here (the browser's position,
// or a latitude and longitude typed in when it cannot tell); and, signed in, Find friends by email.
import { api, currentSession } from './api.js';
import { postTile } from './card.js';
import { avatar, count, currentPosition, cursorPager, field, h, replace, userLink } from './dom.js';
import { findFriendsForm } from './people.js';
import { followedTagsSection } from './followedtags.js';

const RADII = [1, 5, 10, 25, 50];

/** `near=LAT,LON` of the route as {latitude, longitude}, or null. */
function parseNear(text) {
  const [latitude, longitude] = (text || '').split(',').map(Number);
  return text && Number.isFinite(latitude) && Number.isFinite(longitude) ? { latitude, longitude } : null;
}

/**
 * "Trending now": the hashtags most used these days (with their posts this week) and the public posts most
 * liked and commented for their age, as the server ranks them; nothing shows while none trends.
 */
function trending() {
  const tags = h('ul', { class: 'tags trending-tags' });
  const grid = h('ul', { class: 'grid trending-posts' });
  const section = h('section', { class: 'trending', 'aria-labelledby': 'trending-title', hidden: true },
    h('h2', { id: 'trending-title' }, 'Trending now'), tags, grid);
  Promise.all([api.trendingTags(), api.trendingPosts()]).then(([tagPage, postPage]) => {
    for (const tag of tagPage.items) {
      const uses = tag.history.reduce((sum, day) => sum + day.uses, 0);
      tags.append(h('li', {},
        h('a', { href: `#/tag/${encodeURIComponent(tag.name)}`, class: 'tag' }, `#${tag.name}`),
        h('span', { class: 'muted' }, ` ${count(uses, 'post')} this week`)));
    }
    for (const post of postPage.items) grid.append(postTile(post));
    section.hidden = tagPage.items.length + postPage.items.length === 0;
  }).catch(() => { /* trends are extra: the search works without them */ });
  return section;
}

export function render(root, { query }, app) {
  document.title = 'Search · Timeline';
  const input = h('input', {
    id: 'search', name: 'q', type: 'search', autocomplete: 'off', autocapitalize: 'none', spellcheck: 'false',
    placeholder: '@username or #hashtag', value: query.get('q') || '', 'aria-describedby': 'search-hint',
  });
  const form = h('form', { role: 'search', class: 'search-form' },
    h('label', { for: 'search' }, 'Search'),
    input,
    h('p', { id: 'search-hint', class: 'hint' }, 'People by the start of their username, and hashtags by their start: “sun” finds #sunrise.'));
  const radius = h('select', { id: 'radius', name: 'radius' },
    ...RADII.map((km) => h('option', { value: String(km) }, `${km} km`)));
  radius.value = RADII.includes(Number(query.get('r'))) ? query.get('r') : '10';
  const nearbyButton = h('button', { type: 'button', class: 'secondary' }, 'Nearby');
  const manual = h('form', { class: 'nearby-manual', hidden: true, novalidate: true },
    h('p', { class: 'hint' }, 'Or say where:'),
    field('latitude', 'Latitude', { name: 'latitude', inputmode: 'decimal', placeholder: '60.17' }),
    field('longitude', 'Longitude', { name: 'longitude', inputmode: 'decimal', placeholder: '24.94' }),
    h('button', { type: 'submit', class: 'secondary' }, 'Search here'));
  const nearbyControls = h('div', { class: 'nearby-controls' },
    nearbyButton, h('label', { for: 'radius' }, 'Within'), radius);
  const status = h('p', { class: 'status', role: 'status' });
  let near = parseNear(query.get('near'));
  const results = h('div', { class: 'results' });
  const sentinel = h('div', { class: 'more' });
  let stopPager = null;
  let timer = null;

  // A grid of post tiles filled page by page: `load(cursor)` gives a page (null to stop), and
  // `describe(total)` the status line (total is null while more pages follow).
  const tiles = (className, load, describe) => {
    const grid = h('ul', { class: className });
    results.append(grid);
    let found = 0;
    stopPager = cursorPager(sentinel, load, (page, first) => {
      for (const post of page.items) grid.append(postTile(post));
      found += page.items.length;
      status.textContent = describe(!first || page.next ? null : found);
    }, { endText: '' });
  };

  const run = () => {
    stopPager?.();
    const text = input.value.trim();
    replace(results);
    replace(sentinel);
    status.textContent = '';
    if (near) {
      const km = Number(radius.value);
      const where = `${near.latitude.toFixed(3)}, ${near.longitude.toFixed(3)}`;
      tiles('grid nearby', async (cursor) => {
        try {
          return await api.nearby({ ...near, radiusKm: km }, cursor);
        } catch (error) {
          status.textContent = error.message;
          return null;
        }
      }, (total) => total === null ? `Posts within ${km} km of ${where}` : `${count(total, 'post')} within ${km} km of ${where}`);
    } else {
      // A word is both: people whose username starts with it (after any @), and tags that
      // start with it (after any #). `#…` looks for tags only, `@…` for people only.
      const word = text.replace(/^[@#]+/, '');
      if (!text) results.append(trending());
      const tagsList = h('ul', { class: 'tags' });
      const people = h('ul', { class: 'people' });
      const tagsWanted = !text.startsWith('@') && word !== '';
      const peopleWanted = !text.startsWith('#');
      results.append(tagsList, people);
      let tagsFound = 0;
      let peopleFound = 0;
      const exactTag = text.startsWith('#') ? word : '';
      const say = () => {
        if (exactTag) return;  // the grid's status says it
        const parts = [];
        if (tagsWanted && tagsFound) parts.push(count(tagsFound, 'hashtag'));
        if (peopleWanted && peopleFound) parts.push(count(peopleFound, 'person', 'people'));
        status.textContent = parts.length ? `${parts.join(' and ')} whose name starts with “${word}”`
          : word ? 'Nothing found.' : 'People on Timeline';
      };
      if (tagsWanted) {
        api.tags(word).then((page) => {
          if (!tagsList.isConnected) return;
          for (const tag of page.items) {
            tagsList.append(h('li', {}, h('a', { href: `#/tag/${encodeURIComponent(tag.name)}`, class: 'tag' }, `#${tag.name}`)));
          }
          tagsFound = page.items.length;
          say();
        }).catch((error) => { status.textContent = error.message; });
      }
      if (!peopleWanted) {
        // `#tag`: its posts too, as before.
        if (!exactTag) return;
        tiles('grid', (cursor) => api.hashtag(exactTag, cursor),
          (total) => total === null ? `Posts tagged #${exactTag}` : `${count(total, 'post')} tagged #${exactTag}`);
        return;
      }
      stopPager = cursorPager(sentinel, (before) => api.searchUsers(word, before), (page) => {
        for (const user of page.items) {
          people.append(h('li', {},
            avatar(user.id, user.username, { user }),
            h('span', {}, userLink(user.username), user.bio ? h('span', { class: 'muted bio-line' }, user.bio) : null)));
        }
        peopleFound += page.items.length;
        say();
      }, { endText: '' });
    }
  };

  const searchNear = (position) => {
    near = position;
    input.value = '';
    history.replaceState(null, '', `#/search?near=${near.latitude},${near.longitude}&r=${radius.value}`);
    run();
  };
  nearbyButton.addEventListener('click', async () => {
    nearbyButton.disabled = true;
    status.textContent = 'Finding where you are…';
    try {
      manual.hidden = true;
      searchNear(await currentPosition());
    } catch (error) {
      status.textContent = `${error.message} Type a latitude and longitude instead.`;
      manual.hidden = false;
      manual.querySelector('#latitude').focus();
    } finally {
      nearbyButton.disabled = false;
    }
  });
  manual.addEventListener('submit', (event) => {
    event.preventDefault();
    // An empty field is no coordinate (Number('') would be 0).
    const coordinate = (id) => {
      const text = manual.querySelector(id).value.trim().replace(',', '.');
      return text === '' ? NaN : Number(text);
    };
    const latitude = coordinate('#latitude');
    const longitude = coordinate('#longitude');
    manual.querySelector('#latitude-error').textContent = Number.isFinite(latitude) && Math.abs(latitude) <= 90 ? '' : 'A latitude is a number from -90 to 90.';
    manual.querySelector('#longitude-error').textContent = Number.isFinite(longitude) && Math.abs(longitude) <= 180 ? '' : 'A longitude is a number from -180 to 180.';
    if (manual.querySelector('#latitude-error').textContent || manual.querySelector('#longitude-error').textContent) return;
    searchNear({ latitude, longitude });
  });
  radius.addEventListener('change', () => {
    if (near) searchNear(near);
  });

  input.addEventListener('input', () => {
    near = null;
    clearTimeout(timer);
    timer = setTimeout(() => {
      history.replaceState(null, '', `#/search${input.value ? `?q=${encodeURIComponent(input.value)}` : ''}`);
      run();
    }, 250);
  });
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    near = null;
    clearTimeout(timer);
    run();
  });

  replace(root, h('h1', { class: 'visually-hidden' }, 'Search'), form, currentSession() ? findFriendsForm() : null,
    nearbyControls, manual, status, results, sentinel, currentSession() ? followedTagsSection().element : null);
  run();
  if (!query.get('q') && !near) input.focus();
  return () => {
    clearTimeout(timer);
    stopPager?.();
  };
}
