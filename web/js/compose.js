// New post: Photos and videos (up to ten, an album, chosen or dropped on the form, each movable
// earlier), each uploaded as soon as it is chosen — while the caption is typed; a video is then
// transcoded by the server, which the form waits for — with a preview, its own
// upload bar and an Alt text field; Caption, an optional place (the
// browser's position and a name), Sensitive and a content warning, who sees it (everyone, or
// followers only: the default of a private account), Share, and the uploads' progress bar.
import { api } from './api.js';
import { clearErrors, currentPosition, field, h, replace, showError, showErrors } from './dom.js';
import { pollComposer } from './poll.js';
import { localInput } from './scheduled.js';

const MAX_PHOTOS = 10;
// The server's limits (Validation.maxCaption, ImageUpload.maxBytes), told before anything is sent.
const MAX_CAPTION = 2200;
const MAX_PHOTO_BYTES = 10 * 1024 * 1024;
// The server's default video limits (Options.maxVideoBytes, maxVideoSeconds).
const MAX_VIDEO_BYTES = 100 * 1000 * 1000;
const PHOTO_TYPES = ['image/jpeg', 'image/png', 'image/gif', 'image/webp', 'image/heic', 'image/heif'];
const VIDEO_TYPES = ['video/mp4', 'video/quicktime', 'video/webm'];

/** `bytes` for people: "12.3 MB". */
function size(bytes) {
  return bytes >= 1024 * 1024 ? `${(bytes / 1024 / 1024).toFixed(1)} MB` : `${Math.ceil(bytes / 1024)} KB`;
}

/** Whether `file` is a video (by its type: MP4, MOV or WebM). */
function isVideo(file) {
  return VIDEO_TYPES.includes(file.type);
}

/** Why `file` cannot be in a post, in a sentence naming it; null when it can. */
function refusal(file) {
  if (isVideo(file)) {
    return file.size > MAX_VIDEO_BYTES ? `${file.name} is ${size(file.size)}: a video can be at most 100 MB.` : null;
  }
  if (file.type && !PHOTO_TYPES.includes(file.type)) {
    return `${file.name} is not a photo: choose a JPEG, PNG, GIF, WebP or HEIC image, or an MP4, MOV or WebM video.`;
  }
  if (file.size > MAX_PHOTO_BYTES) return `${file.name} is ${size(file.size)}: a photo can be at most 10 MB.`;
  return null;
}

export function render(root, _route, app) {
  document.title = 'New post · Timeline';
  const placeholder = h('p', { class: 'preview-empty', 'aria-hidden': 'true' }, 'No photo chosen');
  const album = h('ol', { class: 'album-editor', 'aria-label': 'Photos to share' });
  const poll = pollComposer();
  const progress = h('progress', { id: 'upload-progress', max: '100', value: '0', 'aria-label': 'Upload progress', hidden: true });
  const form = h('form', { class: 'panel compose', novalidate: true },
    h('div', { class: 'preview-box' }, placeholder, album),
    field('photo', 'Photos', { name: 'image', type: 'file', multiple: true, accept: 'image/jpeg,image/png,image/gif,image/webp,image/heic,video/mp4,video/quicktime,video/webm', required: true }),
    progress,
    field('caption', 'Caption', { name: 'caption', rows: '3', placeholder: 'Say something about it… #hashtags welcome' }, 'textarea'),
    h('p', { id: 'caption-count', class: 'hint counter', 'aria-live': 'polite' }, `0/${MAX_CAPTION}`),
    h('div', { class: 'field check' },
      h('input', { id: 'use-location', type: 'checkbox', name: 'useLocation' }),
      h('label', { for: 'use-location' }, 'Add my location'),
      h('p', { id: 'location-status', class: 'hint', 'aria-live': 'polite' })),
    field('place-name', 'Place name', { name: 'location.name', maxlength: '100', placeholder: 'Optional, e.g. Harbour steps', disabled: true }),
    h('div', { class: 'check' },
      h('input', { id: 'sensitive', type: 'checkbox', name: 'sensitive' }),
      h('label', { for: 'sensitive' }, 'Sensitive: blur it until people tap to see it')),
    field('warning', 'Content warning', { name: 'warning', maxlength: '200', placeholder: 'Optional, e.g. Spiders' }),
    h('div', { class: 'field' },
      h('label', { for: 'visibility' }, 'Who can see it'),
      h('select', { id: 'visibility', name: 'visibility' },
        h('option', { value: 'public', selected: !app.me?.locked }, 'Everyone'),
        h('option', { value: 'followers', selected: Boolean(app.me?.locked) }, 'Followers only'),
        h('option', { value: 'direct' }, 'Direct: only the people you @mention'))),
    poll.element,
    h('div', { class: 'check' },
      h('input', { id: 'schedule', type: 'checkbox', name: 'schedule' }),
      h('label', { for: 'schedule' }, 'Schedule for later')),
    field('scheduled-at', 'Post at', { name: 'scheduledAt', type: 'datetime-local', disabled: true }),
    h('p', { class: 'error form-error', role: 'alert' }),
    h('button', { type: 'submit', class: 'primary' }, 'Share'));
  const photo = form.querySelector('#photo');
  // Schedule for later: the time (at least 5 minutes ahead, the server says so otherwise), and
  // the button says what it does.
  const schedule = form.querySelector('#schedule');
  const scheduledAt = form.querySelector('#scheduled-at');
  schedule.addEventListener('change', () => {
    scheduledAt.disabled = !schedule.checked;
    if (schedule.checked && !scheduledAt.value) scheduledAt.value = localInput(new Date(Date.now() + 3600 * 1000).toISOString());
    form.querySelector('button[type=submit]').textContent = schedule.checked ? 'Schedule' : 'Share';
  });
  const useLocation = form.querySelector('#use-location');
  const locationStatus = form.querySelector('#location-status');
  const placeName = form.querySelector('#place-name');
  const caption = form.querySelector('#caption');
  const counter = form.querySelector('#caption-count');
  let position = null;
  let shared = false;
  caption.addEventListener('input', () => {
    const length = [...caption.value].length;
    counter.textContent = `${length}/${MAX_CAPTION}`;
    counter.classList.toggle('over', length > MAX_CAPTION);
  });
  // Leaving a draft (photos chosen or words typed) asks first; so does closing the page.
  const dirty = () => !shared && (photos.length > 0 || caption.value.trim() !== '');
  app.leaveGuard = () => !dirty() || window.confirm('Discard post?');
  const beforeUnload = (event) => { if (dirty()) event.preventDefault(); };
  window.addEventListener('beforeunload', beforeUnload);

  // Each chosen photo: its preview, its Alt text field, and its upload (a promise of the media).
  const photos = [];
  // The bar counts the uploads that may still succeed: a refused one leaves it (and alone, hides it).
  const showProgress = () => {
    const going = photos.filter((p) => !p.error);
    const total = going.reduce((sum, p) => sum + p.fraction, 0);
    progress.hidden = going.length === 0;
    progress.value = going.length ? Math.round((total / going.length) * 100) : 0;
  };
  const renumber = () => photos.forEach((p, index) => {
    p.label.textContent = `Alt text for photo ${index + 1}`;
    p.remove.setAttribute('aria-label', `Remove photo ${index + 1}`);
    p.earlier.setAttribute('aria-label', `Move photo ${index + 1} earlier`);
    p.earlier.hidden = index === 0;
  });
  // The album's order is the post's: a photo moves one place earlier (keyboard and touch alike).
  const moveEarlier = (entry) => {
    const index = photos.indexOf(entry);
    if (index <= 0) return;
    photos.splice(index - 1, 0, ...photos.splice(index, 1));
    album.insertBefore(entry.item, photos[index].item);
    renumber();
    entry.earlier.focus();
  };
  const add = (file) => {
    const url = URL.createObjectURL(file);
    const id = `alt-${Math.random().toString(36).slice(2)}`;
    const entry = { file, url, fraction: 0, media: null, error: null };
    const video = isVideo(file);
    const preview = video
      ? h('video', { class: 'preview', src: url, muted: true, playsinline: true, 'aria-label': `Preview of ${file.name}` })
      : h('img', { class: 'preview', src: url, alt: `Preview of ${file.name}` });
    preview.onerror = () => { preview.hidden = true; };
    entry.label = h('label', { for: id });
    entry.alt = h('textarea', { id, rows: '2', maxlength: '1500', placeholder: 'Describe the photo for people who cannot see it' });
    entry.status = h('p', { class: 'hint', 'aria-live': 'polite' }, 'Uploading…');
    entry.bar = h('progress', { max: '100', value: '0', 'aria-label': `Upload of ${file.name}` });
    entry.remove = h('button', { type: 'button', class: 'link danger' }, 'Remove');
    entry.earlier = h('button', { type: 'button', class: 'link' }, 'Move earlier');
    entry.earlier.addEventListener('click', () => moveEarlier(entry));
    entry.item = h('li', { class: 'album-photo' },
      preview, entry.label, entry.alt, entry.bar, entry.status, h('div', { class: 'row' }, entry.earlier, entry.remove));
    entry.remove.addEventListener('click', () => {
      photos.splice(photos.indexOf(entry), 1);
      entry.item.remove();
      URL.revokeObjectURL(url);
      placeholder.hidden = photos.length > 0;
      renumber();
      showProgress();
    });
    const refused = refusal(file);
    const onProgress = (fraction) => {
      entry.fraction = fraction;
      entry.bar.value = Math.round(fraction * 100);
      showProgress();
      // Sent: the server now turns the video into one every browser and app plays.
      if (video && fraction >= 1) entry.status.textContent = 'Processing the video…';
    };
    entry.upload = (refused ? Promise.reject(new Error(refused))
      : video ? api.uploadVideo(file, onProgress) : api.uploadMedia(file, onProgress)).then((media) => {
      entry.media = media;
      entry.bar.hidden = true;
      entry.status.textContent = 'Uploaded';
      return media;
    }, (error) => {
      entry.bar.hidden = true;
      entry.error = error;
      entry.fraction = 0;
      entry.status.textContent = error.message.startsWith(file.name) ? error.message : `${file.name}: ${error.message}`;
      entry.status.className = 'upload-error';
      entry.status.setAttribute('role', 'alert');
      showProgress();
      throw error;
    });
    entry.upload.catch(() => {});
    photos.push(entry);
    album.append(entry.item);
  };

  const choose = (files) => {
    clearErrors(form);
    const room = MAX_PHOTOS - photos.length;
    if (files.length > room) showError(form, { field: 'image', message: `A post holds at most ${MAX_PHOTOS} photos.` });
    files.slice(0, Math.max(0, room)).forEach(add);
    placeholder.hidden = photos.length > 0;
    renumber();
    showProgress();
  };
  photo.addEventListener('change', () => {
    choose([...photo.files]);
    photo.value = '';
  });
  // Photos dropped on the form join the album as chosen ones do.
  form.addEventListener('dragover', (event) => {
    if (![...event.dataTransfer.types].includes('Files')) return;
    event.preventDefault();
    form.classList.add('dropping');
  });
  form.addEventListener('dragleave', () => form.classList.remove('dropping'));
  form.addEventListener('drop', (event) => {
    if (!event.dataTransfer.files.length) return;
    event.preventDefault();
    form.classList.remove('dropping');
    choose([...event.dataTransfer.files]);
  });

  useLocation.addEventListener('change', async () => {
    position = null;
    placeName.disabled = true;
    locationStatus.textContent = '';
    if (!useLocation.checked) return;
    locationStatus.textContent = 'Finding where you are…';
    try {
      position = await currentPosition();
      if (!useLocation.checked) return;
      placeName.disabled = false;
      locationStatus.textContent = `At ${position.latitude.toFixed(3)}, ${position.longitude.toFixed(3)}`;
    } catch (error) {
      useLocation.checked = false;
      locationStatus.textContent = error.message;
    }
  });

  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    clearErrors(form);
    // Everything wrong with the form, told at once, before anything is sent.
    const errors = [];
    // A direct message may be text alone; every other post shares a photo.
    const direct = form.querySelector('#visibility').value === 'direct';
    if (photos.length === 0 && !direct) errors.push({ field: 'image', message: 'Choose a photo to share.' });
    if (photos.length === 0 && direct && !caption.value.trim()) {
      errors.push({ field: 'caption', message: 'Write the message (and @mention whom it is for).' });
    }
    const refused = photos.filter((p) => p.error).map((p) => p.file.name);
    if (refused.length) {
      errors.push({ field: 'image', message: `Remove what cannot be shared: ${refused.join(', ')}.` });
    }
    const length = [...caption.value].length;
    if (length > MAX_CAPTION) {
      errors.push({
        field: 'caption', message: `The caption is ${length} characters long: it can be at most ${MAX_CAPTION}.`,
      });
    }
    errors.push(...poll.problems());
    if (errors.length) {
      showErrors(form, errors);
      return;
    }
    const button = form.querySelector('button[type=submit]');
    button.disabled = true;
    try {
      // The uploads may still be running: the post waits for them, then sets the alt texts.
      const media = await Promise.all(photos.map((p) => p.upload));
      for (const [index, p] of photos.entries()) {
        const alt = p.alt.value.trim();
        if (alt !== (media[index].alt || '')) await api.updateMedia(media[index].id, alt);
      }
      const location = useLocation.checked && position ? { ...position, name: placeName.value.trim() || undefined } : undefined;
      const warning = form.querySelector('#warning').value.trim();
      const fields = {
        media: media.length ? media.map((m) => m.id) : undefined,
        caption: form.querySelector('#caption').value || undefined,
        location,
        sensitive: form.querySelector('#sensitive').checked,
        warning: warning || undefined,
        visibility: form.querySelector('#visibility').value,
        ...poll.fields(),
      };
      if (schedule.checked) {
        await api.schedulePost({ ...fields, scheduledAt: new Date(scheduledAt.value).toISOString() });
        shared = true;
        app.navigate('#/scheduled');
        return;
      }
      const post = await api.addPost(fields);
      shared = true;
      app.navigate(`#/post/${encodeURIComponent(post.id)}`);
    } catch (error) {
      showError(form, error);
    } finally {
      button.disabled = false;
    }
  });

  replace(root, h('h1', {}, 'New post'), form);
  return () => {
    window.removeEventListener('beforeunload', beforeUnload);
    photos.forEach((p) => URL.revokeObjectURL(p.url));
  };
}
