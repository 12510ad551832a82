// Lists of people one follows (Mastodon's lists): #/lists makes, renames and deletes them;
// #/lists/ID reads one as a timeline of its own, with its people (add someone you follow by
// username, remove them). Each list is its owner's alone.
import { api } from './api.js';
import { postCard } from './card.js';
import { avatar, cursorPager, field, h, replace, showError, userLink } from './dom.js';

export async function render(root, { params }) {
  if (params.length) return one(root, params[0]);
  return all(root);
}

async function all(root) {
  document.title = 'Lists · Timeline';
  const items = h('ul', { class: 'people lists' });
  const none = h('p', { class: 'empty', hidden: true }, 'No lists yet: make one of people you follow.');
  const exclusive = h('input', { id: 'list-exclusive', type: 'checkbox', name: 'exclusive' });
  const form = h('form', { class: 'panel', novalidate: true },
    field('list-title', 'Title', { name: 'title', required: true, maxlength: 255 }),
    h('p', {}, exclusive, h('label', { for: 'list-exclusive' }, ' Hide its people from my home timeline')),
    h('p', { class: 'error form-error', role: 'alert' }),
    h('button', { type: 'submit', class: 'primary' }, 'Make the list'));
  const show = async () => {
    const { lists } = await api.lists();
    items.replaceChildren(...lists.map((list) => row(list, show)));
    none.hidden = lists.length > 0;
  };
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    const title = form.elements.title.value.trim();
    try {
      await api.createList(title, exclusive.checked);
      form.reset();
      await show();
    } catch (error) {
      showError(form, error);
    }
  });
  replace(root, h('h1', {}, 'Lists'), form, none, items);
  await show();
}

/** One list's row: its link, Rename and Delete. */
function row(list, refresh) {
  const rename = h('button', { type: 'button', class: 'secondary', 'aria-label': `Rename ${list.title}` }, 'Rename');
  const remove = h('button', { type: 'button', class: 'secondary', 'aria-label': `Delete ${list.title}` }, 'Delete');
  rename.addEventListener('click', async () => {
    const title = window.prompt('New title', list.title);
    if (title && title.trim() && title.trim() !== list.title) {
      await api.updateList(list.id, { title: title.trim() });
      await refresh();
    }
  });
  remove.addEventListener('click', async () => {
    if (!window.confirm(`Delete the list ${list.title}?`)) return;
    await api.deleteList(list.id);
    await refresh();
  });
  return h('li', {},
    h('a', { href: `#/lists/${encodeURIComponent(list.id)}`, class: 'who' }, list.title),
    list.exclusive ? h('span', { class: 'muted' }, ' (not in home)') : null,
    rename, remove);
}

async function one(root, id) {
  const list = await api.list(id);
  document.title = `${list.title} · Timeline`;
  const people = h('ul', { class: 'people' });
  const username = h('input', { id: 'list-add', name: 'username', autocapitalize: 'none', spellcheck: 'false' });
  const add = h('form', { class: 'panel', novalidate: true },
    h('label', { for: 'list-add' }, 'Add someone you follow (username)'), username,
    h('p', { class: 'error form-error', role: 'alert' }),
    h('button', { type: 'submit', class: 'primary' }, 'Add'));
  const feed = h('div', { class: 'feed' });
  const sentinel = h('div', { class: 'more' });
  const showPeople = async () => {
    const page = await api.listAccounts(id);
    people.replaceChildren(...page.items.map((user) => {
      const out = h('button', { type: 'button', class: 'secondary', 'aria-label': `Remove ${user.username}` }, 'Remove');
      out.addEventListener('click', async () => {
        await api.removeFromList(id, [user.id]);
        await showPeople();
        await showPosts();
      });
      return h('li', {}, avatar(user.id, user.username, { user }), h('span', { class: 'who' }, userLink(user.username)), out);
    }));
  };
  let stop = null;
  const showPosts = async () => {
    if (stop) stop();
    feed.replaceChildren();
    stop = cursorPager(sentinel, (before) => api.listTimeline(id, before), (page) => {
      for (const post of page.items) feed.append(postCard(post));
    }, { endText: 'No more posts in this list.' });
  };
  add.addEventListener('submit', async (event) => {
    event.preventDefault();
    try {
      const user = await api.user(`@${username.value.trim().replace(/^@/, '')}`);
      await api.addToList(id, [user.id]);
      add.reset();
      await showPeople();
      await showPosts();
    } catch (error) {
      showError(add, error);
    }
  });
  replace(root, h('h1', {}, list.title), h('p', {}, h('a', { href: '#/lists' }, 'All lists')),
    h('h2', {}, 'People'), people, add, h('h2', {}, 'Posts'), feed, sentinel);
  await showPeople();
  await showPosts();
  return () => stop && stop();
}
