// "Forgot password?": ask for a reset link by email (#/forgot), and set a new password from the
// mailed link (#/reset?token=…), which ends every session and then signs in.
import { api } from './api.js';
import { clearErrors, field, h, replace, showError } from './dom.js';

/** Names every empty required field of `form`; whether there was none. */
function filled(form) {
  const empty = [...form.querySelectorAll('[required]')].filter((control) => !control.value.trim());
  for (const control of empty) {
    control.setAttribute('aria-invalid', 'true');
    form.querySelector(`#${CSS.escape(control.id)}-error`).textContent = `Enter your ${control.labels[0].textContent.toLowerCase()}.`;
  }
  empty[0]?.focus();
  return empty.length === 0;
}

export function render(root, { mode, query }, app) {
  return mode === 'reset' ? renderReset(root, query, app) : renderForgot(root);
}

function renderForgot(root) {
  document.title = 'Forgot password · Timeline';
  const form = h('form', { class: 'panel auth', novalidate: true },
    h('p', {}, 'Enter the email of your account: we will send it a link to choose a new password.'),
    field('forgot-email', 'Email', { name: 'email', type: 'email', autocomplete: 'email', required: true }),
    h('p', { class: 'error form-error', role: 'alert' }),
    h('button', { type: 'submit', class: 'primary' }, 'Send the link'));
  const done = h('p', { class: 'notice', role: 'status', 'aria-live': 'polite' });
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    clearErrors(form);
    if (!filled(form)) return;
    const button = form.querySelector('button[type=submit]');
    button.disabled = true;
    try {
      await api.requestPasswordReset({ email: form.elements.email.value.trim() });
      // The server never says whether the email is known: neither does this page.
      done.textContent = 'If an account has this email, a link to choose a new password is on its way. It works for one hour.';
    } catch (error) {
      showError(form, error);
    } finally {
      button.disabled = false;
    }
  });
  replace(root,
    h('div', { class: 'auth-screen' },
      h('h1', {}, 'Forgot your password?'),
      form, done,
      h('p', { class: 'switch' }, ['Remembered it? ', h('a', { href: '#/signin' }, 'Sign in')])));
}

function renderReset(root, query, app) {
  document.title = 'Choose a new password · Timeline';
  const token = query.get('token') || '';
  const form = h('form', { class: 'panel auth', novalidate: true },
    field('reset-email', 'Email', { name: 'email', type: 'email', autocomplete: 'username', required: true }),
    field('reset-password', 'New password', { name: 'password', type: 'password', autocomplete: 'new-password', required: true }),
    h('p', { class: 'error form-error', role: 'alert' }),
    h('button', { type: 'submit', class: 'primary' }, 'Set the password and sign in'));
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    clearErrors(form);
    if (!filled(form)) return;
    const button = form.querySelector('button[type=submit]');
    button.disabled = true;
    const email = form.elements.email.value.trim(), password = form.elements.password.value;
    try {
      await api.resetPassword({ token, password });
    } catch (error) {
      // An expired or spent link names the `token` field, which this form has not got.
      showError(form, error.field === 'token'
        ? { message: 'This link has expired or was already used. Ask for a new one.' } : error);
      button.disabled = false;
      return;
    }
    try {
      await api.signIn({ email, password });
      app.afterSignIn();
    } catch {
      app.navigate('#/signin');
    }
  });
  replace(root,
    h('div', { class: 'auth-screen' },
      h('h1', {}, 'Choose a new password'),
      h('p', {}, 'Setting it signs you out everywhere.'),
      form,
      h('p', { class: 'switch' }, h('a', { href: '#/forgot' }, 'Ask for a new link'))));
}
