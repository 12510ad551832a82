// New post: Photo (with a preview), Caption, an optional place (the browser's position and a
// name), who sees it (everyone, or followers only: the default of a private account), Share,
// and the upload's progress bar.
import { api } from './api.js';
import { clearErrors, currentPosition, field, h, replace, showError } from './dom.js';

export function render(root, _route, app) {
  document.title = 'New post · Timeline';
  const preview = h('img', { class: 'preview', alt: '', hidden: true });
  const placeholder = h('p', { class: 'preview-empty', 'aria-hidden': 'true' }, 'No photo chosen');
  const progress = h('progress', { id: 'upload-progress', max: '100', value: '0', 'aria-label': 'Upload progress', hidden: true });
  const form = h('form', { class: 'panel compose', novalidate: true },
    h('div', { class: 'preview-box' }, preview, placeholder),
    field('photo', 'Photo', { name: 'image', type: 'file', accept: 'image/jpeg,image/png,image/gif,image/webp,image/heic', required: true }),
    field('caption', 'Caption', { name: 'caption', rows: '3', placeholder: 'Say something about it… #hashtags welcome' }, 'textarea'),
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
        h('option', { value: 'followers', selected: Boolean(app.me?.locked) }, 'Followers only'))),
    progress,
    h('p', { class: 'error form-error', role: 'alert' }),
    h('button', { type: 'submit', class: 'primary' }, 'Share'));
  const photo = form.querySelector('#photo');
  const caption = form.querySelector('#caption');
  const useLocation = form.querySelector('#use-location');
  const locationStatus = form.querySelector('#location-status');
  const placeName = form.querySelector('#place-name');
  let position = null;
  let previewURL = null;

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

  photo.addEventListener('change', () => {
    if (previewURL) URL.revokeObjectURL(previewURL);
    previewURL = null;
    const file = photo.files[0];
    preview.hidden = !file;
    placeholder.hidden = Boolean(file);
    if (file) {
      previewURL = URL.createObjectURL(file);
      preview.src = previewURL;
      preview.alt = `Preview of ${file.name}`;
      // Not a picture the browser can show: no broken-image icon (the server says why on Share).
      preview.onerror = () => {
        preview.hidden = true;
        placeholder.hidden = false;
      };
    }
  });
  caption.addEventListener('input', () => {
    if (previewURL) preview.alt = caption.value || `Preview of ${photo.files[0]?.name || 'the photo'}`;
  });

  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    clearErrors(form);
    const file = photo.files[0];
    if (!file) {
      showError(form, { field: 'image', message: 'Choose a photo to share.' });
      return;
    }
    const button = form.querySelector('button[type=submit]');
    button.disabled = true;
    progress.hidden = false;
    progress.value = 0;
    try {
      const location = useLocation.checked && position ? { ...position, name: placeName.value.trim() || undefined } : undefined;
      const post = await api.upload(file, caption.value, (fraction) => {
        progress.value = Math.round(fraction * 100);
      }, location, {
        sensitive: form.querySelector('#sensitive').checked,
        warning: form.querySelector('#warning').value.trim(),
        visibility: form.querySelector('#visibility').value,
      });
      app.navigate(`#/post/${encodeURIComponent(post.id)}`);
    } catch (error) {
      progress.hidden = true;
      showError(form, error);
    } finally {
      button.disabled = false;
    }
  });

  replace(root, h('h1', {}, 'New post'), form);
  return () => {
    if (previewURL) URL.revokeObjectURL(previewURL);
  };
}
