// Stories: the row above Home (one's own first, with "Add to your story": a photo or a video; then the accounts one
// follows, those with stories not seen yet first, ringed) and the viewer that plays an account's
// stories one after another — each marked seen as it shows; on one's own, who saw it, Highlight
// and Delete; on another's, a reply (sent as a direct message).
import { api } from './api.js';
import { avatar, h, replace } from './dom.js';

/**
 * What the viewer shows of a story: its photo, or a video story's video (playing, muted until
 * asked, its poster frame first), fetched with the bearer as the photo is.
 */
function storyMedia(story) {
  if (!story.video) return storyImage(story);
  const video = h('video', {
    class: 'story-photo story-video', autoplay: true, muted: true, playsinline: true, controls: true,
    'aria-label': `Video story by ${story.authorUsername}`,
  });
  api.privateImageURL(story.image).then((url) => { video.poster = url; }, () => {});
  api.privateVideoURL(story.video.media).then((url) => { video.src = url; }, () => video.classList.add('unavailable'));
  return video;
}

/**
 * A story's photo (a video story's poster frame): fetched with the bearer (a locked account's
 * is served only to its followers).
 */
function storyImage(story) {
  const img = h('img', { class: 'story-photo', alt: `Story by ${story.authorUsername}` });
  api.privateImageURL(story.image).then((url) => {
    img.addEventListener('load', () => URL.revokeObjectURL(url), { once: true });
    img.src = url;
  }, () => img.classList.add('unavailable'));
  return img;
}

/** The stories row: an element that loads itself (`load()`), for the top of Home. */
export function storiesRow(me) {
  const list = h('ul', { class: 'stories-row' });
  const section = h('section', { class: 'stories', 'aria-label': 'Stories' }, list);
  const note = h('p', { class: 'error', role: 'alert' });
  section.append(note);

  const picker = h('input', {
    type: 'file', accept: 'image/*,video/mp4,video/quicktime,video/webm', hidden: true,
    'aria-label': 'Photo or video for your story',
  });
  picker.addEventListener('change', async () => {
    const file = picker.files[0];
    picker.value = '';
    if (!file) return;
    note.textContent = '';
    try {
      if (file.type.startsWith('video/')) {
        // Uploaded, then transcoded by the server (the upload waits for it), then posted.
        note.textContent = 'Preparing your video…';
        const media = await api.uploadVideo(file, () => {});
        await api.postVideoStory(media.id);
        note.textContent = '';
      } else {
        await api.postStory(file);
      }
      await load();
    } catch (error) {
      note.textContent = error.message || 'The story could not be posted.';
    }
  });

  const load = async () => {
    let authors;
    try {
      ({ authors } = await api.stories());
    } catch {
      return; // the row is an extra: Home works without it
    }
    const add = h('button', { type: 'button', class: 'story-add' },
      h('span', { class: 'story-ring add', 'aria-hidden': 'true' }, '+'), h('span', { class: 'story-name' }, 'Add to your story'));
    add.addEventListener('click', () => picker.click());
    const items = [h('li', {}, add, picker)];
    authors.forEach((author, index) => {
      const own = author.user.id === me?.id;
      const button = h('button', {
        type: 'button', class: author.hasUnseen ? 'story-author unseen' : 'story-author',
        'aria-label': `${own ? 'Your story' : `Story by ${author.user.username}`}${author.hasUnseen ? ', not seen' : ''}`,
      },
      h('span', { class: 'story-ring' }, avatar(author.user.id, author.user.username, { user: author.user })),
      h('span', { class: 'story-name' }, own ? 'Your story' : author.user.username));
      button.addEventListener('click', () => openViewer(authors, index, me, load));
      items.push(h('li', {}, button));
    });
    replace(list, ...items);
  };
  section.load = load;
  return section;
}

/**
 * A profile's highlights (stories kept past their day), newest first: a row of round photos
 * under the header, each played in the viewer. Hidden when there are none.
 */
export function highlightsPanel(user, me) {
  const list = h('ul', { class: 'stories-row highlights' });
  const section = h('section', { class: 'stories', 'aria-label': 'Highlights', hidden: true },
    h('h2', { class: 'visually-hidden' }, 'Highlights'), list);
  const load = async () => {
    let stories;
    try {
      ({ stories } = await api.highlights(user.id));
    } catch {
      return;
    }
    section.hidden = stories.length === 0;
    replace(list, ...stories.map((story, index) => {
      const button = h('button', { type: 'button', class: 'story-author', 'aria-label': `Highlight ${index + 1} of ${user.username}` },
        h('span', { class: 'story-ring' }, storyImage(story)));
      button.addEventListener('click', () => openViewer([{ user, stories: stories.slice(index) }], 0, me, load));
      return h('li', {}, button);
    }));
  };
  load();
  return section;
}

/** Plays `authors[index]`'s stories, then the next account's; closing reloads the row. */
function openViewer(authors, index, me, reload) {
  const dialog = h('dialog', { class: 'story-viewer', 'aria-label': 'Story' });
  document.body.append(dialog);
  let a = index;
  let s = Math.max(0, authors[a].stories.findIndex((story) => !story.seen));

  const close = () => {
    window.removeEventListener('hashchange', close);
    if (!dialog.isConnected) return;
    dialog.close();
    dialog.remove();
    reload();
  };
  // Another screen (the back button, a link) closes it.
  window.addEventListener('hashchange', close);
  const step = (by) => {
    s += by;
    if (s < 0) {
      if (a === 0) { s = 0; return; }
      a -= 1;
      s = authors[a].stories.length - 1;
    } else if (s >= authors[a].stories.length) {
      if (a === authors.length - 1) { close(); return; }
      a += 1;
      s = 0;
    }
    show();
  };

  const show = () => {
    const author = authors[a];
    const story = author.stories[s];
    const own = author.user.id === me?.id;
    const status = h('p', { class: 'muted story-status', role: 'status' });
    const controls = [];
    if (own) {
      const seenBy = h('button', { type: 'button', class: 'secondary' }, `Seen by ${story.viewCount ?? 0}`);
      const viewers = h('ul', { class: 'story-viewers' });
      seenBy.addEventListener('click', async () => {
        const page = await api.storyViewers(story.id);
        replace(viewers, ...page.items.map((user) => h('li', {}, user.username)));
      });
      const highlight = h('button', { type: 'button', class: 'secondary' }, story.highlighted ? 'Remove highlight' : 'Highlight');
      highlight.addEventListener('click', async () => {
        if (story.highlighted) await api.unhighlightStory(story.id);
        else await api.highlightStory(story.id);
        story.highlighted = !story.highlighted;
        highlight.textContent = story.highlighted ? 'Remove highlight' : 'Highlight';
        status.textContent = story.highlighted ? 'Kept on your profile.' : 'No longer a highlight.';
      });
      const remove = h('button', { type: 'button', class: 'danger' }, 'Delete');
      remove.addEventListener('click', async () => {
        if (!confirm('Delete this story?')) return;
        await api.deleteStory(story.id);
        author.stories.splice(s, 1);
        if (!author.stories.length) close();
        else step(0);
      });
      controls.push(h('div', { class: 'row' }, seenBy, highlight, remove), viewers);
    } else {
      if (!story.seen) {
        story.seen = true;
        api.viewStory(story.id).catch(() => {});
      }
      const text = h('input', { type: 'text', name: 'reply', 'aria-label': `Reply to ${author.user.username}`, placeholder: `Reply to ${author.user.username}…`, maxlength: '2200' });
      const reply = h('form', { class: 'story-reply' }, text, h('button', { type: 'submit', class: 'primary' }, 'Send'));
      reply.addEventListener('submit', async (event) => {
        event.preventDefault();
        if (!text.value.trim()) return;
        try {
          await api.replyToStory(story.id, text.value.trim());
          text.value = '';
          status.textContent = 'Sent as a message.';
        } catch (error) {
          status.textContent = error.message || 'The reply could not be sent.';
        }
      });
      controls.push(reply);
    }
    const previous = h('button', { type: 'button', class: 'secondary' }, 'Previous');
    const next = h('button', { type: 'button', class: 'secondary' }, 'Next');
    const shut = h('button', { type: 'button', class: 'secondary story-close' }, 'Close');
    previous.addEventListener('click', () => step(-1));
    next.addEventListener('click', () => step(1));
    shut.addEventListener('click', close);
    replace(dialog,
      h('header', {}, avatar(author.user.id, author.user.username, { user: author.user }),
        h('strong', {}, own ? 'Your story' : author.user.username), shut),
      storyMedia(story),
      h('div', { class: 'row story-nav' }, previous, next),
      ...controls,
      status);
  };
  dialog.addEventListener('cancel', (event) => {
    event.preventDefault();
    close();
  });
  show();
  dialog.showModal();
}
