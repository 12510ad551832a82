// Messages: direct posts, seen only by their author and the people they @mention. #/messages
// lists the conversations (the newest message first, unread ones marked) with a form to write
// to @someone (text alone is allowed); #/messages/ID opens one: its messages, oldest first, and
// an answer to everyone in it. Opening a conversation marks it read; Remove takes it out of
// one's own list only.
import { api } from './api.js';
import { h, replace, showError } from './dom.js';

export async function render(root, { params }, app) {
  if (params.length) return one(root, params[0], app);
  return all(root, app);
}

/** A form that sends a direct message whose text starts with `to` (the @names addressed). */
function sendForm(to, sent) {
  const text = h('textarea', { id: 'message-text', name: 'caption', rows: '3', required: true });
  text.value = to;
  const form = h('form', { class: 'panel', novalidate: true },
    h('label', { for: 'message-text' }, 'Message (only the people you @mention see it)'), text,
    h('p', { class: 'error form-error', role: 'alert' }),
    h('button', { type: 'submit', class: 'primary' }, 'Send'));
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    try {
      const post = await api.addPost({ caption: text.value, visibility: 'direct' });
      text.value = to;
      await sent(post);
    } catch (error) {
      showError(form, error);
    }
  });
  return form;
}

async function all(root, app) {
  document.title = 'Messages · Timeline';
  const items = h('ul', { class: 'people conversations' });
  const none = h('p', { class: 'empty', hidden: true }, 'No messages yet: write to someone with @their name.');
  const show = async () => {
    const page = await api.conversations();
    items.replaceChildren(...page.items.map((c) => row(c, show)));
    none.hidden = page.items.length > 0;
  };
  replace(root, h('h1', {}, 'Messages'), sendForm('@', show), none, items);
  await show();
}

/** One conversation's row: who wrote its last message and what, unread or not, and Remove. */
function row(conversation, refresh) {
  const last = conversation.lastPost;
  const remove = h('button', { type: 'button', class: 'secondary', 'aria-label': 'Remove this conversation' }, 'Remove');
  remove.addEventListener('click', async () => {
    await api.removeConversation(conversation.id);
    await refresh();
  });
  return h('li', { class: conversation.unread ? 'unread' : '' },
    h('a', { href: `#/messages/${encodeURIComponent(conversation.id)}`, class: 'who' },
      conversation.unread ? h('strong', {}, `@${last.authorUsername}: `) : `@${last.authorUsername}: `,
      last.caption || ''),
    conversation.unread ? h('span', { class: 'muted' }, ' (unread)') : null,
    remove);
}

async function one(root, id, app) {
  document.title = 'Conversation · Timeline';
  const { items } = await api.conversations();
  const conversation = items.find((c) => c.id === id);
  if (!conversation) {
    replace(root, h('h1', {}, 'Conversation'), h('p', { class: 'empty' }, 'This conversation is not in your messages.'));
    return;
  }
  await api.markConversationRead(id);
  const people = new Set([...conversation.accounts, app.me.id]);
  const names = await Promise.all(conversation.accounts.map(async (user) => (await api.user(user)).username));
  const thread = h('ol', { class: 'messages' });
  const show = async () => {
    // Its messages: the direct posts among exactly these people.
    const page = await api.directPosts();
    const mine = page.items.filter((post) => {
      const among = new Set([post.author, ...(post.addressees || [])]);
      return among.size === people.size && [...among].every((user) => people.has(user));
    }).reverse();
    thread.replaceChildren(...mine.map((post) => h('li', {},
      h('strong', {}, `@${post.authorUsername}`), ' ', post.caption || '')));
  };
  replace(root, h('h1', {}, `With ${names.map((n) => `@${n}`).join(', ')}`), thread,
    sendForm(names.map((n) => `@${n} `).join(''), show));
  await show();
}
