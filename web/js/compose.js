// New post: Photo (with a preview), Caption, Share, and the upload's progress bar.
import { api } from './api.js';
import { clearErrors, field, h, replace, showError } from './dom.js';

export function render(root, _route, app) {
  document.title = 'New post · Timeline';
  const preview = h('img', { class: 'preview', alt: '', hidden: true });
  const placeholder = h('p', { class: 'preview-empty', 'aria-hidden': 'true' }, 'No photo chosen');
  const progress = h('progress', { id: 'upload-progress', max: '100', value: '0', 'aria-label': 'Upload progress', hidden: true });
  const form = h('form', { class: 'panel compose', novalidate: true },
    h('div', { class: 'preview-box' }, preview, placeholder),
    field('photo', 'Photo', { name: 'image', type: 'file', accept: 'image/jpeg,image/png,image/gif,image/webp,image/heic', required: true }),
    field('caption', 'Caption', { name: 'caption', rows: '3', placeholder: 'Say something about it… #hashtags welcome' }, 'textarea'),
    progress,
    h('p', { class: 'error form-error', role: 'alert' }),
    h('button', { type: 'submit', class: 'primary' }, 'Share'));
  const photo = form.querySelector('#photo');
  const caption = form.querySelector('#caption');
  let previewURL = null;

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
      const post = await api.upload(file, caption.value, (fraction) => {
        progress.value = Math.round(fraction * 100);
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
