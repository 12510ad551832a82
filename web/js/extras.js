// Profile extras (#41): a profile's pinned posts (first, each labelled "Pinned") and its
// featured accounts, Pin/Unpin and Mute conversation on one's own post, a private note on
// someone else's profile (only its writer sees it), Feature on profile, and Remove follower.
import { api } from './api.js';
import { postCard, postTile } from './card.js';
import { h, replace, toggle } from './dom.js';
import { person } from './people.js';

/** The "Pinned" label a pinned post carries on its profile. */
const pinnedLabel = () => h('span', { class: 'pinned-label' }, '📌 Pinned');

/**
 * `user`'s pinned posts, first in the profile's `grid` and `list` (each labelled); answers their
 * ids, which the paged posts below then leave out.
 */
export async function showPinned(user, grid, list) {
  const pinned = await api.pinnedPosts(user.id).catch(() => ({ items: [] }));
  for (const post of pinned.items) {
    const tile = postTile(post);
    tile.classList.add('pinned');
    tile.append(pinnedLabel());
    grid.append(tile);
    const card = postCard(post);
    card.classList.add('pinned');
    card.querySelector('.card-head').append(pinnedLabel());
    list.append(card);
  }
  return new Set(pinned.items.map((post) => post.id));
}

/** The accounts `user` features on their profile, or nothing when there are none (or none in sight). */
export function featuredPanel(user) {
  const items = h('ul', { class: 'people' });
  const panel = h('section', { class: 'featured', 'aria-labelledby': 'featured-title', hidden: true },
    h('h2', { id: 'featured-title' }, 'Featured'), items);
  api.endorsements(user.id).then((page) => {
    replace(items, page.items.map((account) => person(account, account.bio)));
    panel.hidden = page.items.length === 0;
  }).catch(() => {});
  return panel;
}

/** "Feature on profile" / "Featured": only for an account the viewer follows. */
export function endorseButton(user) {
  const button = h('button', { type: 'button', class: 'secondary endorse' });
  const render = () => {
    button.hidden = !user.followedByViewer;
    button.textContent = user.endorsedByViewer ? 'Featured' : 'Feature on profile';
    button.setAttribute('aria-pressed', user.endorsedByViewer ? 'true' : 'false');
  };
  return toggle(button, {
    isOn: () => user.endorsedByViewer === true,
    set: async (wanted) => {
      await (wanted ? api.endorse(user.id) : api.unendorse(user.id));
      user.endorsedByViewer = wanted;
    },
    render,
  });
}

/** A private note on `user`, seen only by the viewer who writes it. */
export function noteField(user) {
  const input = h('textarea', { id: 'account-note', name: 'note', rows: '2', maxlength: '2000', placeholder: 'Only you can see this note' });
  input.value = user.noteByViewer || '';
  const status = h('span', { class: 'status', role: 'status' });
  const save = h('button', { type: 'submit', class: 'secondary' }, 'Save note');
  const form = h('form', { class: 'account-note' },
    h('label', { for: 'account-note' }, 'Private note'), input, h('div', { class: 'row' }, save, status));
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    save.disabled = true;
    try {
      await api.setNote(user.id, input.value);
      user.noteByViewer = input.value;
      status.textContent = 'Saved';
    } catch (error) {
      status.textContent = error.message;
    } finally {
      save.disabled = false;
    }
  });
  return form;
}

/** Pin/Unpin for the viewer's own post `post` (at most 5 pinned: the server says so). */
export function pinButton(post) {
  const pin = h('button', { type: 'button', class: 'link pin' });
  let pinned = false;
  toggle(pin, {
    isOn: () => pinned,
    set: async (wanted) => {
      await (wanted ? api.pin(post.id) : api.unpin(post.id));
      pinned = wanted;
    },
    render: () => { pin.textContent = pinned ? 'Unpin' : 'Pin to profile'; },
  });
  pin.hidden = true;
  api.pinnedPosts(post.author).then((page) => {
    pinned = page.items.some((item) => item.id === post.id);
    pin.textContent = pinned ? 'Unpin' : 'Pin to profile';
    pin.hidden = false;
  }).catch(() => {});
  return pin;
}

/** "Remove follower" for one of the viewer's own followers, `user`. */
export function removeFollowerButton(user) {
  const button = h('button', { type: 'button', class: 'secondary remove-follower' }, 'Remove follower');
  button.setAttribute('aria-label', `Remove follower ${user.username}`);
  button.addEventListener('click', async () => {
    if (!confirm(`Remove @${user.username} from your followers? They will not be told.`)) return;
    button.disabled = true;
    try {
      await api.removeFollower(user.id);
      replace(button.parentElement.querySelector('.who'), `@${user.username} removed`);
      button.remove();
    } catch (error) {
      button.disabled = false;
      button.title = error.message;
    }
  });
  return button;
}
