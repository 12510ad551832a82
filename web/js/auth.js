// Sign up / Sign in (with a one-time code, for an account with two-factor sign-in).
import { api } from './api.js';
import { clearErrors, field, h, replace, showError } from './dom.js';

export function render(root, { mode }, app) {
  const signingUp = mode === 'signup';
  document.title = `${signingUp ? 'Sign up' : 'Sign in'} · Timeline`;
  const form = h('form', { class: 'panel auth', novalidate: true },
    signingUp ? field('signup-username', 'Username', { name: 'username', autocomplete: 'username', autocapitalize: 'none', spellcheck: 'false', required: true }) : null,
    field(`${mode}-email`, 'Email', { name: 'email', type: 'email', autocomplete: 'email', required: true }),
    field(`${mode}-password`, 'Password', {
      name: 'password', type: 'password', required: true,
      autocomplete: signingUp ? 'new-password' : 'current-password',
    }),
    signingUp ? null : h('p', { class: 'forgot' }, h('a', { href: '#/forgot' }, 'Forgot password?')),
    h('p', { class: 'error form-error', role: 'alert' }),
    h('button', { type: 'submit', class: 'primary' }, signingUp ? 'Sign up' : 'Sign in'));

  // An account with two-factor sign-in: its password was right; the form asks for the code
  // (sent with the email and password again).
  const askForCode = () => {
    if (!form.querySelector('[name="code"]')) {
      form.insertBefore(field(`${mode}-code`, 'Code from your authenticator app', {
        name: 'code', autocomplete: 'one-time-code', inputmode: 'numeric', required: true, spellcheck: 'false',
      }), form.querySelector('.form-error'));
    }
    form.querySelector('.form-error').textContent = 'Enter the code your authenticator app shows (or a recovery code).';
    form.querySelector('[name="code"]').focus();
  };

  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    clearErrors(form);
    // Every empty field is named at once (the server would name only the first).
    const empty = [...form.querySelectorAll('[required]')].filter((control) => !control.value.trim());
    for (const control of empty) {
      control.setAttribute('aria-invalid', 'true');
      form.querySelector(`#${CSS.escape(control.id)}-error`).textContent = `Enter your ${control.labels[0].textContent.toLowerCase()}.`;
    }
    if (empty.length) {
      empty[0].focus();
      return;
    }
    const values = Object.fromEntries(new FormData(form));
    const button = form.querySelector('button[type=submit]');
    button.disabled = true;
    try {
      if (signingUp) await api.signUp(values);
      else await api.signIn(values);
      app.afterSignIn();
    } catch (error) {
      if (!signingUp && error.code === 'two_factor_required') askForCode();
      else if (error.field === 'code') {
        const code = form.querySelector('[name="code"]');
        code.setAttribute('aria-invalid', 'true');
        form.querySelector(`#${mode}-code-error`).textContent = 'That code is not right, or was used already.';
        code.focus();
      } else showError(form, error);
    } finally {
      button.disabled = false;
    }
  });

  replace(root,
    h('div', { class: 'auth-screen' },
      h('h1', {}, signingUp ? 'Create your account' : 'Sign in to Timeline'),
      form,
      h('p', { class: 'switch' }, signingUp
        ? ['Have an account? ', h('a', { href: '#/signin' }, 'Sign in instead')]
        : ['New here? ', h('a', { href: '#/signup' }, 'Create an account')])));
}
