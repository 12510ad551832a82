// Collections of accounts to feature (Mastodon's collections): #/collections makes one (with
// people one follows), lists one's own and those one is featured in (Leave takes oneself out);
// #/collection/ID shows one: its people, and for its owner Add (a username) and Remove. A
// profile shows its owner's collections (collectionsPanel).
import { api } from './api.js';
import { avatar, field, h, replace, showError, userLink } from './dom.js';

export async function render(root, { params }, app) {
  if (params.length) return one(root, params[0], app);
  return all(root, app);
}

/** A collection's link, with how many it features. */
function link(collection) {
  const n = collection.items.length;
  return h('a', { href: `#/collection/${encodeURIComponent(collection.id)}`, class: 'who' },
    collection.name, h('span', { class: 'muted' }, ` (${n} ${n === 1 ? 'person' : 'people'})`));
}

/** The collections `user` features on their profile (hidden when none). */
export function collectionsPanel(user) {
  const items = h('ul', { class: 'people collections' });
  const panel = h('section', { class: 'collections-panel', 'aria-labelledby': 'collections-title', hidden: true },
    h('h2', { id: 'collections-title' }, 'Collections'), items);
  api.userCollections(user.id).then(({ collections }) => {
    replace(items, collections.map((collection) => h('li', {}, link(collection))));
    panel.hidden = collections.length === 0;
  }).catch(() => {});
  return panel;
}

async function all(root, app) {
  document.title = 'Collections · Timeline';
  const mine = h('ul', { class: 'people collections' });
  const featured = h('ul', { class: 'people featured-in' });
  const none = h('p', { class: 'empty', hidden: true }, 'No collections yet: make one of people worth following.');
  const noneIn = h('p', { class: 'empty', hidden: true }, 'Nobody features you in a collection yet.');
  const form = h('form', { class: 'panel', novalidate: true },
    field('collection-name', 'Name', { name: 'name', required: true, maxlength: 40 }),
    field('collection-description', 'Description', { name: 'description', maxlength: 100 }),
    field('collection-people', 'People you follow (usernames, comma-separated)',
      { name: 'people', autocapitalize: 'none', spellcheck: 'false' }),
    h('p', { class: 'error form-error', role: 'alert' }),
    h('button', { type: 'submit', class: 'primary' }, 'Make the collection'));
  const me = app.me;
  const show = async () => {
    const [{ collections }, { collections: inOthers }] = await Promise.all([
      api.userCollections(me.id), api.inCollections()]);
    mine.replaceChildren(...collections.map((collection) => h('li', {}, link(collection))));
    none.hidden = collections.length > 0;
    featured.replaceChildren(...inOthers.map((collection) => {
      const item = collection.items.find((i) => i.user === me.id);
      const owner = collection.users[0];
      const leave = h('button', { type: 'button', class: 'secondary', 'aria-label': `Leave ${collection.name}` }, 'Leave');
      leave.addEventListener('click', async () => {
        if (!window.confirm(`Leave ${owner.username}'s collection ${collection.name}?`)) return;
        await api.revokeCollectionItem(collection.id, item.id);
        await show();
      });
      return h('li', {}, link(collection), h('span', { class: 'muted' }, ' by '), userLink(owner.username), leave);
    }));
    noneIn.hidden = inOthers.length > 0;
  };
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    try {
      const names = form.elements.people.value.split(',').map((n) => n.trim().replace(/^@/, '')).filter(Boolean);
      const accounts = [];
      for (const name of names) accounts.push((await api.user(`@${name}`)).id);
      const made = await api.createCollection({
        name: form.elements.name.value.trim(), description: form.elements.description.value.trim(), accounts });
      form.reset();
      app.navigate(`#/collection/${encodeURIComponent(made.id)}`);
    } catch (error) {
      showError(form, error);
    }
  });
  replace(root, h('h1', {}, 'Collections'), form, h('h2', {}, 'Yours'), none, mine,
    h('h2', {}, 'Featuring you'), noneIn, featured);
  await show();
}

async function one(root, id, app) {
  const me = app.me;
  const people = h('ul', { class: 'people collection-people' });
  const heading = h('h1', {});
  const about = h('p', {});
  const add = h('form', { class: 'panel', novalidate: true, hidden: true },
    field('collection-add', 'Add someone you follow (username)', { name: 'username', autocapitalize: 'none', spellcheck: 'false' }),
    h('p', { class: 'error form-error', role: 'alert' }),
    h('button', { type: 'submit', class: 'primary' }, 'Add'));
  const remove = h('button', { type: 'button', class: 'secondary', hidden: true }, 'Delete the collection');
  const show = async () => {
    const collection = await api.collection(id);
    document.title = `${collection.name} · Timeline`;
    const owner = collection.users[0];
    const own = me && owner.id === me.id;
    heading.textContent = collection.name;
    replace(about, collection.description ? `${collection.description} · ` : '', 'by ', userLink(owner.username));
    add.hidden = !own;
    remove.hidden = !own;
    people.replaceChildren(...collection.items.map((item, index) => {
      const user = collection.users[index + 1];
      let action = null;
      if (own) {
        action = h('button', { type: 'button', class: 'secondary', 'aria-label': `Remove ${user.username}` }, 'Remove');
        action.addEventListener('click', async () => {
          await api.removeFromCollection(id, item.id);
          await show();
        });
      } else if (me && user.id === me.id) {
        action = h('button', { type: 'button', class: 'secondary', 'aria-label': 'Leave this collection' }, 'Leave');
        action.addEventListener('click', async () => {
          await api.revokeCollectionItem(id, item.id);
          await show();
        });
      }
      return h('li', {}, avatar(user.id, user.username, { user }), h('span', { class: 'who' }, userLink(user.username)),
        action);
    }));
  };
  add.addEventListener('submit', async (event) => {
    event.preventDefault();
    try {
      const user = await api.user(`@${add.elements.username.value.trim().replace(/^@/, '')}`);
      await api.addToCollection(id, user.id);
      add.reset();
      await show();
    } catch (error) {
      showError(add, error);
    }
  });
  remove.addEventListener('click', async () => {
    if (!window.confirm('Delete this collection?')) return;
    await api.deleteCollection(id);
    app.navigate('#/collections');
  });
  replace(root, heading, about, h('p', {}, h('a', { href: '#/collections' }, 'All collections')),
    h('h2', {}, 'People'), people, add, remove);
  await show();
}
