// Reports (moderators): the reported posts, each with its preview, the reasons, Remove (with a
// reason the author is shown) and Dismiss; the reported accounts, with the reasons, the posts
// named, Suspend or Unsuspend, and Dismiss.
import { api } from './api.js';
import { postTile } from './card.js';
import { h, replace, userLink } from './dom.js';

export async function render(root) {
  document.title = 'Reports · Timeline';
  const queue = await api.moderationQueue();
  const status = () => h('p', { class: 'muted', role: 'status' });
  const act = (item, buttons, work, done) => async () => {
    buttons.forEach((b) => { b.disabled = true; });
    const line = item.querySelector('[role=status]');
    try {
      await work();
      line.textContent = done;
    } catch (error) {
      line.textContent = error.message;
    } finally {
      buttons.forEach((b) => { b.disabled = false; });
    }
  };
  const reasons = (entry) => h('ul', { class: 'reasons' }, ...entry.reasons.map((reason) => h('li', {}, h('q', {}, reason))));

  const posts = h('ol', { class: 'report-queue posts' }, ...queue.posts.map((entry) => {
    const item = h('li', { 'data-post': entry.post });
    const remove = h('button', { type: 'button', class: 'danger' }, 'Remove');
    const dismiss = h('button', { type: 'button', class: 'secondary' }, 'Dismiss');
    remove.addEventListener('click', act(item, [remove, dismiss], () => api.removePost(entry.post, entry.reasons[0] || 'Against the rules'), 'Removed'));
    dismiss.addEventListener('click', act(item, [remove, dismiss], () => api.dismissReports(entry.post), 'Dismissed'));
    replace(item,
      entry.preview ? h('ul', { class: 'grid' }, postTile(entry.preview)) : null,
      h('p', {}, `${entry.count} report${entry.count === 1 ? '' : 's'}`, entry.hidden ? ' · hidden' : ''),
      reasons(entry), h('div', { class: 'row' }, remove, dismiss), status());
    return item;
  }));

  const accounts = h('ol', { class: 'report-queue accounts' }, ...queue.accounts.map((entry) => {
    const item = h('li', { 'data-user': entry.user });
    let suspended = entry.suspended;
    const suspend = h('button', { type: 'button', class: 'danger' }, suspended ? 'Unsuspend' : 'Suspend');
    const dismiss = h('button', { type: 'button', class: 'secondary' }, 'Dismiss');
    suspend.addEventListener('click', act(item, [suspend, dismiss], async () => {
      await (suspended ? api.unsuspendUser(entry.user) : api.suspendUser(entry.user));
      suspended = !suspended;
      suspend.textContent = suspended ? 'Unsuspend' : 'Suspend';
    }, 'Done'));
    dismiss.addEventListener('click', act(item, [suspend, dismiss], () => api.dismissUserReports(entry.user), 'Dismissed'));
    replace(item,
      h('p', {}, userLink(entry.username), ` · ${entry.count} report${entry.count === 1 ? '' : 's'}`),
      reasons(entry),
      entry.posts.length ? h('p', {}, 'Posts named: ', ...entry.posts.map((id, index) =>
        h('a', { href: `#/post/${encodeURIComponent(id)}` }, `${index ? ', ' : ''}post ${index + 1}`))) : null,
      h('div', { class: 'row' }, suspend, dismiss), status());
    return item;
  }));

  replace(root, h('h1', {}, 'Reports'),
    h('h2', {}, 'Posts'), queue.posts.length ? posts : h('p', { class: 'empty' }, 'No reported posts.'),
    h('h2', {}, 'Accounts'), queue.accounts.length ? accounts : h('p', { class: 'empty' }, 'No reported accounts.'));
}
