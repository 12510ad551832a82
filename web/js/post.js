// Post: the photo (double-click likes it), Like/Unlike, Save, who liked, the comments (oldest
// first, paged) with a Comment field and Send, Edit and Delete for what the viewer may change,
// "Edited" with every version, and Report for someone else's post.
import { api } from './api.js';
import { pollOf } from './poll.js';
import { pinButton } from './extras.js';
import { album, altText, bookmarkButton, likeControls, likeOnDoubleClick, placeLine, veilIfSensitive, visibilityBadge } from './card.js';
import { avatar, captionNodes, clearErrors, field, h, replace, showError, timeAgo, userLink } from './dom.js';
import { coverIfFiltered } from './filters.js';

export async function render(root, { params: [id] }, app) {
  const post = await api.post(id);
  const me = app.me;
  const mine = post.author === me?.id;
  document.title = `${post.authorUsername}${post.caption ? `: ${post.caption.slice(0, 40)}` : ''} · Timeline`;

  // Who liked
  const likers = h('ul', { class: 'likers' });
  const likersMore = h('button', { type: 'button', class: 'link', hidden: true }, 'More');
  let likersNext = null;
  const loadLikers = async (reset) => {
    const page = await api.likes(id, reset ? undefined : likersNext);
    if (reset) replace(likers);
    for (const user of page.items) likers.append(h('li', {}, userLink(user.username)));
    likersNext = page.next;
    likersMore.hidden = !likersNext;
    likedBy.hidden = likers.childElementCount === 0;
  };
  likersMore.addEventListener('click', () => loadLikers(false));
  const likedBy = h('section', { class: 'liked-by', 'aria-labelledby': 'liked-by-title' },
    h('h2', { id: 'liked-by-title' }, 'Liked by'), likers, likersMore);

  const controls = likeControls(post, { onChange: () => loadLikers(true).catch(() => {}) });
  const figure = h('div', { class: 'photo' }, album(post, 'full'));
  likeOnDoubleClick(figure, controls);
  veilIfSensitive(figure, post);

  // Comments
  const commentCount = h('span', {}, String(post.commentCount));
  const list = h('ol', { class: 'comments' });
  const more = h('button', { type: 'button', class: 'secondary', hidden: true }, 'Load more comments');
  let commentsNext = post.comments.next;
  // Replies answer a top-level comment (one level, as Instagram's): shown indented under it, in
  // its own list (a reply to a reply joins the same thread), saying whom.
  const authors = new Map();
  let replyingTo = null;
  const commentItem = (comment) => {
    authors.set(comment.id, comment.authorUsername);
    const answered = comment.replyTo ? authors.get(comment.replyTo) : null;
    const item = h('li', { class: comment.replyTo ? 'comment reply' : 'comment', 'data-comment': comment.id },
      answered ? h('p', { class: 'muted replying' }, 'replying to ', userLink(answered)) : null,
      h('p', {}, avatar(comment.author, comment.authorUsername), ' ', userLink(comment.authorUsername), ' ', captionNodes(comment.text)),
      h('p', { class: 'meta' }, timeAgo(comment.createdAt)));
    if (me) {
      const reply = h('button', { type: 'button', class: 'link', 'aria-label': `Reply to ${comment.authorUsername}` }, 'Reply');
      reply.addEventListener('click', () => {
        replyingTo = comment;
        const input = form.querySelector('#comment');
        if (!input.value.includes(`@${comment.authorUsername}`)) input.value = `@${comment.authorUsername} ${input.value}`;
        replyNote.hidden = false;
        replace(replyNote, `Replying to @${comment.authorUsername} `,
          h('button', { type: 'button', class: 'link', onclick: () => { replyingTo = null; replyNote.hidden = true; } }, 'Cancel'));
        input.focus();
      });
      item.querySelector('.meta').append(' · ', reply);
    }
    if (me && (comment.author === me.id || mine)) {
      const remove = h('button', { type: 'button', class: 'link danger', 'aria-label': `Delete comment by ${comment.authorUsername}` }, 'Delete');
      remove.addEventListener('click', async () => {
        if (!confirm('Delete this comment?')) return;
        try {
          await api.deleteComment(comment.id);
          item.remove();
          post.commentCount -= 1;
          commentCount.textContent = String(post.commentCount);
        } catch (error) {
          alert(error.message);
        }
      });
      item.querySelector('.meta').append(' · ', remove);
    }
    return coverIfFiltered(item, comment); // a comment a warning filter matched, covered
  };
  // Where a comment goes: a reply at the end of its thread's replies (the thread of the comment
  // it answers, when that is on the page), anything else at the end of the list.
  const shownComment = (id) => list.querySelector(`li[data-comment="${CSS.escape(id)}"]`);
  const place = (comment) => {
    if (shownComment(comment.id)) return; // sent from here, then reached by Load more
    const item = commentItem(comment);
    const answered = comment.replyTo ? shownComment(comment.replyTo) : null;
    if (!answered) {
      list.append(item);
      return;
    }
    const thread = answered.closest('ol.comments > li') || answered;
    let replies = thread.querySelector(':scope > ol.replies');
    if (!replies) {
      replies = h('ol', { class: 'replies', 'aria-label': `Replies to ${authors.get(thread.dataset.comment) || 'this comment'}` });
      thread.append(replies);
    }
    replies.append(item);
  };
  for (const comment of post.comments.items) place(comment);
  more.hidden = !commentsNext;
  more.addEventListener('click', async () => {
    more.disabled = true;
    try {
      const page = await api.comments(id, commentsNext);
      for (const comment of page.items) place(comment);
      commentsNext = page.next;
      more.hidden = !commentsNext;
    } finally {
      more.disabled = false;
    }
  });

  const replyNote = h('p', { class: 'muted reply-note', hidden: true });
  const form = h('form', { class: 'comment-form', novalidate: true },
    field('comment', 'Comment', { name: 'text', autocomplete: 'off', placeholder: 'Add a comment…', required: true }),
    h('button', { type: 'submit', class: 'primary' }, 'Send'),
    h('p', { class: 'error form-error', role: 'alert' }));
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    clearErrors(form);
    const input = form.querySelector('#comment');
    const button = form.querySelector('button[type=submit]');
    button.disabled = true;
    try {
      const comment = await api.addComment(id, input.value, replyingTo?.id);
      replyingTo = null;
      replyNote.hidden = true;
      // A reply goes under the comment it answers; another comment is shown in order once every
      // older page is loaded (until then the end of the list is not the end of the comments).
      if (!commentsNext || (comment.replyTo && shownComment(comment.replyTo))) place(comment);
      post.commentCount += 1;
      commentCount.textContent = String(post.commentCount);
      input.value = '';
    } catch (error) {
      showError(form, error);
    } finally {
      button.disabled = false;
      input.focus();
    }
  });

  let deletePost = null;
  if (mine) {
    deletePost = h('button', { type: 'button', class: 'link danger' }, 'Delete post');
    deletePost.addEventListener('click', async () => {
      if (!confirm('Delete this post?')) return;
      try {
        await api.deletePost(id);
        app.navigate('#/profile');
      } catch (error) {
        alert(error.message);
      }
    });
  }

  const report = me && !mine ? reportControl(id) : null;

  // The caption, Edit for its author, and "Edited" opening the versions.
  const caption = h('h1', { class: 'caption' });
  const renderCaption = () => replace(caption, userLink(post.authorUsername), ' ', post.caption ? captionNodes(post.caption) : '');
  renderCaption();
  const history = h('ol', { class: 'history', hidden: true, 'aria-label': 'Versions of the caption' });
  const edited = h('button', { type: 'button', class: 'link edited', 'aria-expanded': 'false', hidden: !post.editedAt });
  const renderEdited = () => {
    edited.hidden = !post.editedAt;
    edited.textContent = post.editedAt ? `Edited ${timeAgo(post.editedAt)}` : '';
  };
  renderEdited();
  edited.addEventListener('click', async () => {
    const open = edited.getAttribute('aria-expanded') === 'true';
    edited.setAttribute('aria-expanded', String(!open));
    history.hidden = open;
    if (open) return;
    try {
      const { versions } = await api.postHistory(id);
      replace(history, ...versions.map((version, index) => h('li', {},
        h('span', { class: 'muted' }, `${index === 0 ? 'Posted' : 'Edited'} ${timeAgo(version.createdAt)}: `),
        version.caption ? captionNodes(version.caption) : h('em', {}, 'no caption'))));
    } catch (error) {
      replace(history, h('li', { class: 'error' }, error.message));
    }
  });
  let editPost = null;
  const editor = h('div', { class: 'editor' });
  if (mine) {
    editPost = h('button', { type: 'button', class: 'link', 'aria-expanded': 'false', 'aria-controls': 'caption-editor' }, 'Edit');
    editPost.addEventListener('click', () => {
      // An album's photos (uploaded first) have alt texts to edit beside the caption.
      const photos = (post.media || []).filter((item) => item.id !== item.image);
      const form = h('form', { id: 'caption-editor', class: 'panel', novalidate: true },
        field('caption-edit', 'Caption', { name: 'caption', rows: '3', maxlength: '2200' }, 'textarea'),
        ...photos.map((item, index) => field(`alt-edit-${index}`, `Alt text for photo ${index + 1}`,
          { name: `alt-${index}`, rows: '2', maxlength: '1500' }, 'textarea')),
        h('p', { class: 'error form-error', role: 'alert' }),
        h('div', { class: 'row' },
          h('button', { type: 'submit', class: 'primary' }, 'Save'),
          h('button', { type: 'button', class: 'secondary', onclick: () => { replace(editor); editPost.focus(); } }, 'Cancel')));
      form.querySelector('#caption-edit').value = post.caption || '';
      photos.forEach((item, index) => { form.querySelector(`#alt-edit-${index}`).value = item.alt || ''; });
      form.addEventListener('submit', async (event) => {
        event.preventDefault();
        clearErrors(form);
        try {
          const alts = {};
          photos.forEach((item, index) => {
            const alt = form.querySelector(`#alt-edit-${index}`).value.trim();
            if (alt !== (item.alt || '')) alts[item.id] = alt;
          });
          Object.assign(post, await api.editPost(id, form.querySelector('#caption-edit').value, Object.keys(alts).length ? alts : undefined));
          // The photos keep their place; their alt texts are the new ones.
          figure.querySelectorAll('img').forEach((img, index) => { img.alt = altText(post, post.media[index]); });
          renderCaption();
          renderEdited();
          history.hidden = true;
          edited.setAttribute('aria-expanded', 'false');
          replace(editor);
          editPost.focus();
        } catch (error) {
          showError(form, error);
        }
      });
      replace(editor, form);
      form.querySelector('textarea').focus();
    });
  }

  replace(root,
    h('article', { class: 'card post-detail', 'data-post': post.id },
      h('header', { class: 'card-head' },
        avatar(post.author, post.authorUsername),
        userLink(post.authorUsername, { class: 'user author' }),
        visibilityBadge(post),
        h('span', { class: 'when' }, timeAgo(post.createdAt)),
        editPost,
        post.author === me?.id ? pinButton(post) : null,
        deletePost),
      placeLine(post),
      figure,
      pollOf(post),
      h('div', { class: 'body' },
        caption,
        edited,
        history,
        editor,
        h('div', { class: 'actions' }, controls.button, controls.likes, bookmarkButton(post)),
        likedBy,
        h('section', { class: 'comments-section', 'aria-labelledby': 'comments-title' },
          h('h2', { id: 'comments-title' }, 'Comments ', h('span', { class: 'muted' }, '(', commentCount, ')')),
          list,
          more,
          me ? replyNote : null,
          me ? form : null),
        report)));
  await loadLikers(true).catch(() => {});
}

/**
 * "Report this post": a reason, sent to the moderators (a post enough people report is hidden
 * until they decide). One report per person: a second is accepted and changes nothing.
 */
export function reportControl(id, {
  label = 'Report this post', thanks = 'Thank you: the moderators will look at this post.', send: sendReport = (reason) => api.reportPost(id, reason),
} = {}) {
  const open = h('button', { type: 'button', class: 'link', 'aria-expanded': 'false', 'aria-controls': 'report-form' }, label);
  const box = h('div', { class: 'report' }, open);
  open.addEventListener('click', () => {
    const form = h('form', { id: 'report-form', class: 'panel report-form', novalidate: true },
      field('report-reason', 'Why should the moderators look at it?', { name: 'reason', rows: '2', required: true, maxlength: '500' }, 'textarea'),
      h('p', { class: 'error form-error', role: 'alert' }),
      h('div', { class: 'row' },
        h('button', { type: 'submit', class: 'primary' }, 'Send report'),
        h('button', { type: 'button', class: 'secondary', onclick: () => { replace(box, open); open.focus(); } }, 'Cancel')));
    form.addEventListener('submit', async (event) => {
      event.preventDefault();
      clearErrors(form);
      const reason = form.querySelector('#report-reason');
      if (!reason.value.trim()) {
        showError(form, { field: 'reason', message: 'Say what is wrong with it.' });
        return;
      }
      const send = form.querySelector('button[type=submit]');
      send.disabled = true;
      try {
        await sendReport(reason.value.trim());
        replace(box, h('p', { class: 'status', role: 'status', tabindex: '-1' }, thanks));
        box.firstChild.focus();
      } catch (error) {
        showError(form, error);
      } finally {
        send.disabled = false;
      }
    });
    replace(box, form);
    form.querySelector('textarea').focus();
  });
  return box;
}
