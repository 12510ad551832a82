// Settings (#/settings, from the profile's "…" menu): the account's email and password,
// two-factor sign-in (an authenticator app's QR code, recovery codes),
// notifications on this device, sessions (sign out everywhere), blocked and muted accounts, blocked
// servers, muted words (filters.js),
// downloading one's data and deleting the account. Each section is a form or a list of its own;
// a form shows all of its errors at once, in plain sentences.
import { api } from './api.js';
import { avatar, clearErrors, field, h, replace, toggle, userLink } from './dom.js';
import { filtersSection } from './filters.js';
import { disablePush, enablePush, pushSupported } from './push.js';

/** What went wrong, as a sentence a person can act on (the API's own wording is terse). */
function sentence(error, { password = 'The password is not right.' } = {}) {
  if (error.code === 'invalid_credentials') return password;
  if (error.code === 'rate_limited') return 'Too many tries in a short time. Wait a few minutes, then try again.';
  if (error.code === 'email_taken') return 'Another account already uses this email address.';
  if (error.code === 'network') return error.message;
  if (error.field === 'email') return 'Enter a valid email address, like name@example.com.';
  if (error.field === 'newPassword' || error.field === 'password') return 'A password needs 8 to 1,024 characters.';
  const text = error.message || 'Something went wrong.';
  return /[.!?]$/.test(text) ? text.charAt(0).toUpperCase() + text.slice(1) : `${text.charAt(0).toUpperCase()}${text.slice(1)}.`;
}

/** Shows `problems` ({field name: sentence}, '' for the form's own line) all at once; focuses the first. */
function showProblems(form, problems) {
  clearErrors(form);
  let first = null;
  for (const [name, message] of Object.entries(problems)) {
    const control = name ? form.querySelector(`[name="${CSS.escape(name)}"]`) : null;
    const holder = control ? form.querySelector(`#${CSS.escape(control.id)}-error`) : form.querySelector('.form-error');
    if (holder) holder.textContent = message;
    if (control) {
      control.setAttribute('aria-invalid', 'true');
      first ||= control;
    }
  }
  first?.focus();
  return Object.keys(problems).length > 0;
}

/** To Sign in, once signed out (the shell may already have gone there: not drawn twice). */
const toSignIn = (app) => {
  if (location.hash !== '#/signin') app.navigate('#/signin');
};

const section = (id, title, ...children) =>
  h('section', { class: 'settings-section', 'aria-labelledby': id }, h('h2', { id }, title), ...children);

const status = () => h('p', { class: 'muted settings-status', role: 'status' });

/** A submit button that is disabled while `work` runs. */
async function busy(form, work) {
  const submit = form.querySelector('button[type="submit"]');
  submit.disabled = true;
  try {
    await work();
  } finally {
    submit.disabled = false;
  }
}

function emailSection() {
  const note = status();
  const form = h('form', { class: 'panel', novalidate: true },
    field('settings-email', 'New email', { name: 'email', type: 'email', autocomplete: 'email', required: true }),
    field('settings-email-password', 'Password', { name: 'password', type: 'password', autocomplete: 'current-password', required: true }),
    h('p', { class: 'error form-error', role: 'alert' }),
    h('button', { type: 'submit', class: 'primary' }, 'Change email'),
    note);
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    note.textContent = '';
    const { email, password } = Object.fromEntries(new FormData(form));
    const problems = {};
    if (!/^[^\s@]+@[^\s@]+$/.test(email.trim())) problems.email = 'Enter a valid email address, like name@example.com.';
    if (!password) problems.password = 'Enter your password to confirm it is you.';
    if (showProblems(form, problems)) return;
    busy(form, async () => {
      try {
        await api.changeEmail(email.trim(), password);
        form.reset();
        replace(form.querySelector('.current-email') || form.insertBefore(h('p', { class: 'current-email' }), form.firstChild),
          'Your email: ', h('strong', {}, email.trim().toLowerCase()));
        note.textContent = 'Your email is changed.';
      } catch (error) {
        showProblems(form, error.code === 'invalid_credentials' ? { password: sentence(error) }
          : { [error.field === 'email' || error.code === 'email_taken' ? 'email' : '']: sentence(error) });
      }
    });
  });
  return section('settings-email-title', 'Email', form);
}

function passwordSection(app) {
  const note = status();
  const form = h('form', { class: 'panel', novalidate: true },
    field('settings-current-password', 'Current password', { name: 'currentPassword', type: 'password', autocomplete: 'current-password', required: true }),
    field('settings-new-password', 'New password', { name: 'newPassword', type: 'password', autocomplete: 'new-password', required: true, minlength: '8' }),
    field('settings-confirm-password', 'New password again', { name: 'confirmPassword', type: 'password', autocomplete: 'new-password', required: true }),
    h('p', { class: 'muted' }, 'Changing your password signs you out on your other devices.'),
    h('p', { class: 'error form-error', role: 'alert' }),
    h('button', { type: 'submit', class: 'primary' }, 'Change password'),
    note);
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    note.textContent = '';
    const { currentPassword, newPassword, confirmPassword } = Object.fromEntries(new FormData(form));
    const problems = {};
    if (!currentPassword) problems.currentPassword = 'Enter your current password.';
    if (new TextEncoder().encode(newPassword).length < 8) problems.newPassword = 'Your new password needs at least 8 characters.';
    else if (newPassword === currentPassword) problems.newPassword = 'Your new password is the same as the current one.';
    if (confirmPassword !== newPassword) problems.confirmPassword = 'The two new passwords are not the same.';
    if (showProblems(form, problems)) return;
    busy(form, async () => {
      try {
        await api.changePassword(currentPassword, newPassword);
      } catch (error) {
        showProblems(form, error.code === 'invalid_credentials'
          ? { currentPassword: sentence(error, { password: 'Your current password is not right.' }) }
          : { [error.field === 'newPassword' ? 'newPassword' : '']: sentence(error) });
        return;
      }
      // Every session ended, this one too: to Sign in, with the new password (the browser keeps
      // no email to sign in again by itself).
      toSignIn(app);
    });
  });
  return section('settings-password-title', 'Password', form);
}

/**
 * Two-factor sign-in: off, it offers to enrol an authenticator app (its QR code and secret, then
 * a first code, then the ten recovery codes, shown once); on, it says how many recovery codes are
 * left and turns it off with the password and a code.
 */
function twoFactorSection() {
  const body = h('div', {});
  const note = status();
  const codeField = (id) => field(id, 'Code from the app', {
    name: 'code', autocomplete: 'one-time-code', inputmode: 'numeric', required: true, spellcheck: 'false',
  });

  const showOff = () => {
    const start = h('button', { type: 'button', class: 'secondary' }, 'Turn on two-factor sign-in');
    start.addEventListener('click', async () => {
      start.disabled = true;
      try {
        showEnrolment(await api.enrollTwoFactor());
      } catch (error) {
        note.textContent = sentence(error);
        start.disabled = false;
      }
    });
    replace(body,
      h('p', { class: 'muted' }, 'Sign in with a code from an authenticator app too, so that a stolen password is not enough.'),
      h('div', { class: 'row' }, start));
  };

  const showEnrolment = (enrolment) => {
    const form = h('form', { class: 'panel', novalidate: true },
      h('p', {}, 'Scan this code with your authenticator app, then enter the code it shows.'),
      h('img', { class: 'two-factor-qr', src: `data:image/png;base64,${enrolment.qrCode}`, alt: 'QR code for your authenticator app', width: '200', height: '200' }),
      h('p', { class: 'muted' }, 'Cannot scan? Enter this key by hand: ', h('code', { class: 'two-factor-secret' }, enrolment.secret)),
      codeField('settings-two-factor-code'),
      h('p', { class: 'error form-error', role: 'alert' }),
      h('button', { type: 'submit', class: 'primary' }, 'Confirm'));
    form.addEventListener('submit', (event) => {
      event.preventDefault();
      const { code } = Object.fromEntries(new FormData(form));
      if (showProblems(form, code.trim() ? {} : { code: 'Enter the six digits your app shows.' })) return;
      busy(form, async () => {
        try {
          const { recoveryCodes } = await api.confirmTwoFactor(code.trim());
          showRecoveryCodes(recoveryCodes);
        } catch (error) {
          showProblems(form, { code: error.code === 'invalid_credentials' ? 'That code is not right: try the one your app shows now.' : sentence(error) });
        }
      });
    });
    replace(body, form);
    form.querySelector('input[name="code"]').focus();
  };

  const showRecoveryCodes = (codes) => {
    const done = h('button', { type: 'button', class: 'secondary' }, 'I have kept them');
    done.addEventListener('click', () => load());
    replace(body,
      h('p', {}, 'Two-factor sign-in is on. Keep these recovery codes somewhere safe: each signs you in once if you lose your phone. They are shown only now.'),
      h('ul', { class: 'recovery-codes' }, ...codes.map((code) => h('li', {}, h('code', {}, code)))),
      h('div', { class: 'row' }, done));
  };

  const showOn = (left) => {
    const form = h('form', { class: 'panel', novalidate: true },
      h('p', {}, `Two-factor sign-in is on. ${left} recovery code${left === 1 ? '' : 's'} left.`),
      field('settings-two-factor-password', 'Password', { name: 'password', type: 'password', autocomplete: 'current-password', required: true }),
      codeField('settings-two-factor-off-code'),
      h('p', { class: 'error form-error', role: 'alert' }),
      h('button', { type: 'submit', class: 'danger' }, 'Turn off two-factor sign-in'));
    form.addEventListener('submit', (event) => {
      event.preventDefault();
      const { password, code } = Object.fromEntries(new FormData(form));
      const problems = {};
      if (!password) problems.password = 'Enter your password to confirm it is you.';
      if (!code.trim()) problems.code = 'Enter a code from your app, or a recovery code.';
      if (showProblems(form, problems)) return;
      busy(form, async () => {
        try {
          await api.disableTwoFactor(password, code.trim());
          note.textContent = 'Two-factor sign-in is off.';
          showOff();
        } catch (error) {
          const wrong = error.code === 'invalid_credentials';
          showProblems(form, wrong && error.field === 'code' ? { code: 'That code is not right, or was used already.' }
            : wrong ? { password: sentence(error) } : { '': sentence(error) });
        }
      });
    });
    replace(body, form);
  };

  const load = async () => {
    try {
      const state = await api.twoFactorStatus();
      if (state.enabled) showOn(state.recoveryCodesLeft);
      else showOff();
    } catch (error) {
      note.textContent = sentence(error);
    }
  };
  load();
  return section('settings-two-factor-title', 'Two-factor sign-in', body, note);
}

function notificationsSection() {
  const note = status();
  if (!pushSupported()) {
    return section('settings-push-title', 'Notifications on this device',
      h('p', { class: 'muted' }, 'This browser cannot receive push notifications.'));
  }
  let on = false;
  const button = h('button', { type: 'button', class: 'secondary' }, 'Turn on notifications');
  const render = () => {
    button.textContent = on ? 'Turn off notifications' : 'Turn on notifications';
  };
  api.pushSubscription().then(() => { on = true; render(); }, () => {});
  button.addEventListener('click', async () => {
    button.disabled = true;
    try {
      note.textContent = on ? await disablePush() : await enablePush();
      on = await api.pushSubscription().then(() => true, () => false);
    } catch (error) {
      note.textContent = sentence(error);
    } finally {
      button.disabled = false;
      render();
    }
  });
  return section('settings-push-title', 'Notifications on this device',
    h('p', { class: 'muted' }, 'Be told of likes, comments, follows and mentions while Timeline is closed.'),
    h('div', { class: 'row' }, button), note);
}

function sessionsSection(app) {
  const note = status();
  const button = h('button', { type: 'button', class: 'secondary' }, 'Sign out everywhere');
  button.addEventListener('click', async () => {
    if (!confirm('Sign out on every device, this one too?')) return;
    button.disabled = true;
    try {
      await api.signOutEverywhere();
      toSignIn(app);
    } catch (error) {
      note.textContent = sentence(error);
      button.disabled = false;
    }
  });
  return section('settings-sessions-title', 'Sessions',
    h('p', { class: 'muted' }, 'Lost a phone, or signed in on a shared computer? End every session, this one too.'),
    h('div', { class: 'row' }, button), note);
}

/** The people `load(before)` lists, each with a button that undoes (`undo`) and redoes (`redo`) it. */
function accountsList({ id, title, empty, load, isOn, set, on, off }) {
  const list = h('ul', { class: 'people settings-accounts' });
  const none = h('p', { class: 'muted', hidden: true }, empty);
  const more = h('button', { type: 'button', class: 'secondary', hidden: true }, 'Show more');
  const error = h('p', { class: 'error', role: 'alert' });
  let next;
  const page = async () => {
    more.disabled = true;
    try {
      const found = await load(next);
      for (const user of found.items) {
        const button = h('button', { type: 'button', class: 'secondary' });
        toggle(button, {
          isOn: () => isOn(user),
          set: (wanted) => set(user, wanted),
          render: () => {
            button.textContent = isOn(user) ? on : off;
            button.setAttribute('aria-label', `${button.textContent} ${user.username}`);
          },
        });
        list.append(h('li', {}, avatar(user.id, user.username, { user }), userLink(user.username), button));
      }
      next = found.next;
      more.hidden = !next;
      none.hidden = list.children.length > 0;
    } catch (failure) {
      error.textContent = sentence(failure);
    } finally {
      more.disabled = false;
    }
  };
  more.addEventListener('click', page);
  page();
  return h('div', { class: 'settings-list' }, h('h3', { id }, title), none, list, more, error);
}

function blocksSection() {
  return section('settings-blocks-title', 'Blocked and muted accounts, blocked servers',
    accountsList({
      id: 'settings-blocked', title: 'Blocked', empty: 'You have not blocked anyone.',
      load: (before) => api.blocked(before), on: 'Unblock', off: 'Block',
      isOn: (user) => user.blockedByViewer !== false,
      set: async (user, wanted) => {
        await (wanted ? api.block(user.id) : api.unblock(user.id));
        user.blockedByViewer = wanted;
      },
    }),
    accountsList({
      id: 'settings-muted', title: 'Muted', empty: 'You have not muted anyone.',
      load: (before) => api.muted(before), on: 'Unmute', off: 'Mute',
      isOn: (user) => user.mutedByViewer !== false,
      set: async (user, wanted) => {
        await (wanted ? api.mute(user.id) : api.unmute(user.id));
        user.mutedByViewer = wanted;
      },
    }),
    serversList());
}

/** The servers the person blocks, each with Unblock (and Block again, until the page is left). */
function serversList() {
  const list = h('ul', { class: 'settings-servers' });
  const none = h('p', { class: 'muted', hidden: true }, 'You have not blocked any server.');
  const error = h('p', { class: 'error', role: 'alert' });
  api.blockedServers().then(({ servers }) => {
    for (const host of servers) {
      let blocked = true;
      const button = h('button', { type: 'button', class: 'secondary' });
      toggle(button, {
        isOn: () => blocked,
        set: async (wanted) => {
          await (wanted ? api.blockServer(host) : api.unblockServer(host));
          blocked = wanted;
        },
        render: () => {
          button.textContent = blocked ? 'Unblock' : 'Block';
          button.setAttribute('aria-label', `${button.textContent} ${host}`);
        },
      });
      list.append(h('li', {}, h('span', { class: 'server' }, host), button));
    }
    none.hidden = servers.length > 0;
  }).catch((failure) => {
    error.textContent = sentence(failure);
  });
  return h('div', { class: 'settings-list' }, h('h3', { id: 'settings-servers' }, 'Blocked servers'), none, list, error);
}

function exportSection() {
  const note = status();
  const button = h('button', { type: 'button', class: 'secondary' }, 'Download your data');
  button.addEventListener('click', async () => {
    button.disabled = true;
    note.textContent = 'Preparing your archive…';
    try {
      const blob = await api.exportData();
      const url = URL.createObjectURL(blob);
      const link = h('a', { href: url, download: 'timeline-export.zip', hidden: true });
      document.body.append(link);
      link.click();
      link.remove();
      setTimeout(() => URL.revokeObjectURL(url), 60000);
      note.textContent = `Your data is ready: timeline-export.zip (${Math.max(1, Math.round(blob.size / 1024))} KB)`;
    } catch (error) {
      note.textContent = sentence(error);
    } finally {
      button.disabled = false;
    }
  });
  return section('settings-export-title', 'Download your data',
    h('p', { class: 'muted' }, 'A zip archive of your profile, posts, photos, comments and the people you follow.'),
    h('div', { class: 'row' }, button), note);
}

/** What an import's report says, in a sentence: posts added, already here, and what was skipped and why. */
function importSummary(report) {
  const added = report.imported.posts || 0;
  const present = report.alreadyPresent.posts || 0;
  const parts = [`${added} post${added === 1 ? '' : 's'} imported`];
  if (present) parts.push(`${present} already here`);
  if (report.imported.profile) parts.push('your bio and profile photo');
  const skipped = report.skipped.map((s) => `${s.count} skipped: ${s.reason}`);
  return [parts.join(', ') + '.', ...skipped].join(' ');
}

function importSection() {
  const note = status();
  const bar = h('progress', { max: '100', value: '0', 'aria-label': 'Import progress', hidden: true });
  const file = h('input', { id: 'settings-import-file', type: 'file', accept: '.zip,application/zip', name: 'archive' });
  const form = h('form', { class: 'panel', novalidate: true },
    h('p', { class: 'muted' },
      'Bring your Instagram posts, photos, videos, captions and their dates here: in Instagram, ask for ',
      h('strong', {}, 'Download your information'), ' in the JSON format, then choose the zip it sends you. ',
      'Importing the same archive again adds nothing.'),
    h('div', { class: 'field' }, h('label', { for: 'settings-import-file' }, 'Instagram archive (zip)'), file),
    h('button', { type: 'submit', class: 'secondary' }, 'Import'), bar, note);
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    const archive = file.files[0];
    if (!archive) {
      note.textContent = 'Choose the zip Instagram sent you.';
      return;
    }
    busy(form, async () => {
      bar.hidden = false;
      note.textContent = 'Uploading your archive…';
      try {
        let job = await api.startImport(archive, (fraction) => { bar.value = Math.round(fraction * 50); });
        while (job.state === 'running') {
          note.textContent = job.total ? `Importing: ${job.done} of ${job.total}…` : 'Reading your archive…';
          bar.value = 50 + (job.total ? Math.round((job.done / job.total) * 50) : 0);
          await new Promise((resolve) => { setTimeout(resolve, 1000); });
          job = await api.importProgress(job.id);
        }
        bar.value = 100;
        note.textContent = job.state === 'done' ? importSummary(job.report) : `The import failed: ${job.error.message}`;
      } catch (error) {
        note.textContent = sentence(error);
      } finally {
        bar.hidden = true;
      }
    });
  });
  return section('settings-import-title', 'Move in from Instagram', form);
}

function deleteSection(app) {
  const form = h('form', { class: 'panel danger-zone', novalidate: true },
    h('p', {}, 'Deleting your account removes your profile, posts, photos and comments for good. It cannot be undone.'),
    field('settings-delete-password', 'Password', { name: 'password', type: 'password', autocomplete: 'current-password', required: true }),
    h('div', { class: 'field' },
      h('label', { class: 'check', for: 'settings-delete-confirm' },
        h('input', { type: 'checkbox', id: 'settings-delete-confirm', name: 'confirm', value: 'yes', 'aria-describedby': 'settings-delete-confirm-error' }),
        ' I understand that my account and everything in it will be deleted'),
      h('p', { id: 'settings-delete-confirm-error', class: 'error', 'aria-live': 'polite' })),
    h('p', { class: 'error form-error', role: 'alert' }),
    h('button', { type: 'submit', class: 'danger' }, 'Delete my account'));
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    const { password, confirm: confirmed } = Object.fromEntries(new FormData(form));
    const problems = {};
    if (!password) problems.password = 'Enter your password to confirm it is you.';
    if (!confirmed) problems.confirm = 'Tick the box to confirm that you want to delete your account.';
    if (showProblems(form, problems)) return;
    busy(form, async () => {
      try {
        await api.eraseUser(password);
        toSignIn(app);
      } catch (error) {
        showProblems(form, error.code === 'invalid_credentials' ? { password: sentence(error) } : { '': sentence(error) });
      }
    });
  });
  return section('settings-delete-title', 'Delete account', form);
}

export async function render(root, _params, app) {
  document.title = 'Settings · Timeline';
  replace(root, h('div', { class: 'settings' },
    h('h1', {}, 'Settings'),
    emailSection(),
    passwordSection(app),
    twoFactorSection(),
    notificationsSection(),
    sessionsSection(app),
    blocksSection(),
    filtersSection(),
    importSection(),
    exportSection(),
    deleteSection(app)));
}
