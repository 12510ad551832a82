// A place's page (#/place/LAT,LON?name=…): the posts taken within a kilometre of it, newest
// first, as a grid; reached from a post's place line.
import { api } from './api.js';
import { postTile } from './card.js';
import { count, cursorPager, h, replace } from './dom.js';

/** How far around the place its page looks, in kilometres. */
const RADIUS_KM = 1;

export function render(root, { params: [raw], query }) {
  const [latitude, longitude] = raw.split(',').map(Number);
  const name = query.get('name') || `${latitude.toFixed(3)}, ${longitude.toFixed(3)}`;
  document.title = `${name} · Timeline`;
  const total = h('p', { class: 'muted tag-count', role: 'status' }, 'Loading posts…');
  const grid = h('ul', { class: 'grid' });
  const sentinel = h('div', { class: 'more' });
  let found = 0;
  const stop = cursorPager(sentinel, (before) => api.nearby({ latitude, longitude, radiusKm: RADIUS_KM }, before), (page) => {
    for (const post of page.items) grid.append(postTile(post));
    found += page.items.length;
    total.textContent = page.next ? `${found}+ posts nearby` : found === 0 ? 'No posts here yet.' : `${count(found, 'post')} nearby`;
  }, { endText: '' });
  replace(root, h('h1', { tabindex: '-1' }, name), h('p', { class: 'muted' }, `Within ${RADIUS_KM} km`), total, grid, sentinel);
  return stop;
}
