// Polls: the composer's poll fields (options, how long, several choices) and a post's poll as a
// card shows it — a button per option while one may vote, the results once one has voted or the
// poll has ended (hidden totals say so until it ends).
import { api, currentSession } from './api.js';
import { count, h, inlineError } from './dom.js';

// The server's limits (PollLimits; /api/v2/instance states them too).
export const MAX_OPTIONS = 4;
const MAX_OPTION_LENGTH = 50;
const DURATIONS = [
  [300, '5 minutes'], [1800, '30 minutes'], [3600, '1 hour'], [21600, '6 hours'], [86400, '1 day'],
  [259200, '3 days'], [604800, '7 days'],
];

/**
 * The composer's poll fieldset: off until "Add a poll" is ticked. `fields()` gives the addPost
 * fields (none when off); `problems()` what would be refused, as `{field, message}`.
 */
export function pollComposer() {
  const toggle = h('input', { id: 'add-poll', type: 'checkbox', name: 'addPoll' });
  const inputs = Array.from({ length: MAX_OPTIONS }, (_, i) => h('input', {
    id: `poll-option-${i}`, name: `pollOption${i}`, maxlength: String(MAX_OPTION_LENGTH),
    placeholder: i < 2 ? '' : 'Optional',
  }));
  const duration = h('select', { id: 'poll-duration', name: 'pollExpiresIn' },
    ...DURATIONS.map(([seconds, label]) => h('option', { value: String(seconds), selected: seconds === 86400 }, label)));
  const multiple = h('input', { id: 'poll-multiple', type: 'checkbox', name: 'pollMultiple' });
  const body = h('div', { class: 'poll-fields', hidden: true },
    ...inputs.map((input, i) => h('div', { class: 'field' }, h('label', { for: input.id }, `Choice ${i + 1}`), input)),
    h('div', { class: 'field' }, h('label', { for: 'poll-duration' }, 'Poll length'), duration),
    h('div', { class: 'check' }, multiple, h('label', { for: 'poll-multiple' }, 'Allow several choices')));
  toggle.addEventListener('change', () => { body.hidden = !toggle.checked; });
  const element = h('fieldset', { class: 'poll-compose' },
    h('div', { class: 'check' }, toggle, h('label', { for: 'add-poll' }, 'Add a poll')),
    body);
  const options = () => inputs.map((input) => input.value.trim()).filter((value) => value !== '');
  return {
    element,
    fields() {
      if (!toggle.checked) return {};
      return { pollOptions: options(), pollExpiresIn: Number(duration.value), pollMultiple: multiple.checked || undefined };
    },
    problems() {
      if (!toggle.checked) return [];
      const chosen = options();
      if (chosen.length < 2) return [{ message: 'A poll needs at least two choices.' }];
      if (new Set(chosen).size !== chosen.length) return [{ message: 'Each poll choice must be different.' }];
      return [];
    },
  };
}

/** What the poll says of its end: "Ends in 3 hours" or "Ended". */
function ending(poll) {
  if (poll.expired) return 'Ended';
  const minutes = Math.max(1, Math.round((Date.parse(poll.expiresAt) - Date.now()) / 60000));
  if (minutes < 60) return `Ends in ${count(minutes, 'minute')}`;
  const hours = Math.round(minutes / 60);
  return hours < 48 ? `Ends in ${count(hours, 'hour')}` : `Ends in ${count(Math.round(hours / 24), 'day')}`;
}

/** The poll `poll` as a `<div>`: the vote buttons, or the results. `signedIn`: whether one may vote. */
export function pollView(poll, { signedIn }) {
  const root = h('div', { class: 'poll', 'data-poll': poll.id });
  const render = () => {
    const voted = (poll.ownVotes || []).length > 0;
    const voting = signedIn && !voted && !poll.expired;
    const status = h('p', { class: 'poll-status hint', 'aria-live': 'polite' });
    const showError = inlineError(status);
    const chosen = new Set();
    const list = h('ul', { class: 'poll-options' }, ...poll.options.map((option, index) => {
      const mine = (poll.ownVotes || []).includes(index);
      if (voting) {
        const button = h('button', { type: 'button', class: 'poll-choice', 'aria-pressed': 'false' }, option.title);
        button.addEventListener('click', async () => {
          if (poll.multiple) {
            if (chosen.has(index)) chosen.delete(index); else chosen.add(index);
            button.setAttribute('aria-pressed', chosen.has(index) ? 'true' : 'false');
            return;
          }
          await vote([index]);
        });
        return h('li', {}, button);
      }
      const share = option.votesCount === null || poll.votesCount === 0 ? null
        : Math.round((option.votesCount / poll.votesCount) * 100);
      return h('li', { class: mine ? 'poll-result mine' : 'poll-result' },
        h('span', { class: 'poll-title' }, option.title, mine ? ' ✓' : ''),
        h('span', { class: 'poll-count' }, share === null ? '' : `${share}% (${count(option.votesCount, 'vote')})`));
    }));
    const vote = async (choices) => {
      showError('');
      try {
        await api.vote(poll.id, choices);
        Object.assign(poll, await api.poll(poll.id));
        render();
      } catch (error) {
        showError(error.message);
      }
    };
    const submit = voting && poll.multiple
      ? h('button', { type: 'button', class: 'poll-vote' }, 'Vote') : null;
    submit?.addEventListener('click', () => vote([...chosen].sort()));
    const totals = poll.options.some((o) => o.votesCount === null) ? 'Results when it ends' : count(poll.votersCount, 'voter');
    root.replaceChildren(list, submit || '', h('p', { class: 'poll-meta hint' }, `${totals} · ${ending(poll)}`), status);
  };
  render();
  return root;
}

/** A placeholder that becomes the post's poll once it is read (nothing when it cannot be). */
export function pollOf(post, options = { signedIn: Boolean(currentSession()) }) {
  if (!post.poll) return null;
  const slot = h('div', { class: 'poll-slot' });
  api.poll(post.poll).then((poll) => slot.replaceWith(pollView(poll, options))).catch(() => slot.remove());
  return slot;
}
