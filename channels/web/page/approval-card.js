/**
 * The approval card: an `approval-request` part as something a person can read and answer. It says
 * what the assistant wants to do (the tool's title or description when the part carries one, else
 * its humanised name), with which arguments (through the generic view: lists, indented records,
 * money with its currency), until when (in the viewer's time zone, named), and who may decide; then
 * Approve and Deny, or whom the request waits for. A decision, from this page or any other,
 * turns the card into its final state: who decided, and when.
 */
import { appendText, firstString, isRecord, make } from './dom.js';
import { humanise, isEmptyValue, renderValue } from './generic-view.js';
import { localTime } from './local-time.js';

const FINAL_STATES = new Set(['granted', 'denied', 'expired']);

/**
 * Who decided, for people: "you" for this browser's own identity, "someone in the web chat" for
 * another anonymous browser (`web:b_…` means nothing to a reader), else the name the server gave.
 */
function deciderText(decidedBy, viewer) {
  if (!decidedBy) return '';
  if (viewer && (decidedBy === viewer || decidedBy === 'web:' + viewer)) return 'you';
  return decidedBy.startsWith('web:') ? 'someone in the web chat' : decidedBy;
}

function outcomeText(status, decidedBy, decidedAt, viewer) {
  const when = localTime(decidedAt);
  if (status === 'expired') return 'Expired' + (when ? ' at ' + when : '') + '.';
  const verb = status === 'granted' ? 'Approved' : 'Denied';
  const who = deciderText(decidedBy, viewer);
  return verb + (who ? ' by ' + who : '') + (when ? ' at ' + when : '') + '.';
}

/** Whom a request the viewer may not decide waits for: the server's sentence, else the deciders or approvers it names. */
function waitingText(data) {
  const given = firstString(data.waitingFor);
  if (given !== undefined) return given;
  const deciders = firstString(data.deciders);
  if (deciders !== undefined) return 'Waiting for ' + deciders.replace(/[.\s]+$/, '') + '.';
  const names = Array.isArray(data.approvers) ? data.approvers.filter((name) => typeof name === 'string' && name !== '') : [];
  return names.length > 0 ? 'Waiting for ' + names.join(', ') + '.' : 'Waiting for an approver.';
}

function titleOf(data) {
  const title = firstString(data.title, data.label, data.toolLabel, data.toolTitle);
  if (title !== undefined) return title;
  const tool = firstString(data.toolName);
  return tool === undefined ? 'A tool call' : humanise(tool);
}

/**
 * The approval cards of one page.
 *
 * @param {{ postJson: (url: string, body: object) => Promise<Response>, conversationId: string, viewer?: () => string }} options
 *   `viewer`: this browser's identity, so that its own decisions read "by you".
 */
export function createApprovalCards(options) {
  /** Cards by approval id. */
  const cards = new Map();
  /** Final states that arrived (as `approval` events) before their card. */
  const early = new Map();

  /** Turns a card into its final state; later answers for the same approval change nothing. */
  function settle(approvalId, status, decidedBy, decidedAt) {
    if (!FINAL_STATES.has(status)) return;
    const card = cards.get(approvalId);
    if (!card) {
      if (!early.has(approvalId)) early.set(approvalId, { status, decidedBy, decidedAt });
      return;
    }
    if (card.element.dataset.status !== 'pending') return;
    card.element.dataset.status = status;
    card.actions.remove();
    card.result.textContent = outcomeText(status, decidedBy, decidedAt, options.viewer ? options.viewer() : '');
    card.result.hidden = false;
  }

  function showProblem(card, message) {
    card.problem.textContent = message;
    card.problem.hidden = false;
  }

  async function decide(card, decision) {
    if (card.element.dataset.status !== 'pending') return;
    for (const button of card.buttons) button.disabled = true;
    card.element.dataset.posting = 'true';
    card.problem.hidden = true;
    let response;
    let body;
    try {
      const answer = { decision, conversationId: options.conversationId, ...(card.argsHash === undefined ? {} : { argsHash: card.argsHash }) };
      response = await options.postJson('/api/approvals/' + encodeURIComponent(card.approvalId), answer);
      body = await response.json().catch(() => null);
    } catch {
      response = undefined;
    }
    delete card.element.dataset.posting;
    if (response === undefined) {
      showProblem(card, 'No connection: the decision was not sent. Try again.');
    } else if (response.ok && isRecord(body)) {
      settle(card.approvalId, body.status, body.decidedBy, body.decidedAt);
    } else {
      const error = isRecord(body) && isRecord(body.error) ? body.error : {};
      const details = isRecord(error.details) ? error.details : {};
      showProblem(card, typeof error.message === 'string' ? error.message : 'The server answered ' + String(response.status) + '.');
      settle(card.approvalId, details.status, details.decidedBy, details.decidedAt);
    }
    if (card.element.dataset.status === 'pending') for (const button of card.buttons) button.disabled = false;
  }

  function register(card) {
    if (!cards.has(card.approvalId)) cards.set(card.approvalId, card);
    const outcome = early.get(card.approvalId);
    if (outcome) settle(card.approvalId, outcome.status, outcome.decidedBy, outcome.decidedAt);
  }

  function header(data) {
    const title = make('p', 'approval-title');
    title.append(make('strong', 'approval-name', titleOf(data)));
    const tool = firstString(data.toolName);
    if (tool !== undefined) title.append(' ', make('code', 'approval-tool', tool));
    return title;
  }

  function argumentsBlock(args) {
    const block = make('div', 'approval-args');
    block.setAttribute('aria-label', 'Arguments');
    if (isEmptyValue(args)) block.append(make('p', 'approval-note', 'No arguments.'));
    else block.append(renderValue(args, 0));
    return block;
  }

  function expiryLine(expiresAt) {
    const expiry = make('p', 'approval-expiry', 'Answer before ');
    const time = make('time', '', localTime(expiresAt));
    time.dateTime = expiresAt;
    expiry.append(time, '.');
    return expiry;
  }

  /** The card of an `approval-request` part (`text` is the part's own text, shown under the title). */
  function render(part, text) {
    const data = isRecord(part.data) ? part.data : {};
    const approvalId = firstString(data.approvalId);
    const element = make('section', 'part part-approval');
    element.setAttribute('aria-label', 'Approval request');
    element.dataset.status = 'pending';
    element.append(make('span', 'part-label', 'Approval needed'), header(data));
    const description = firstString(data.description, data.toolDescription, data.summary);
    if (description !== undefined) element.append(make('p', 'approval-description', description));
    if (text) {
      const said = make('div', 'approval-text');
      appendText(said, text);
      element.append(said);
    }
    element.append(argumentsBlock(data.args));
    if (typeof data.expiresAt === 'string' && data.expiresAt !== '') element.append(expiryLine(data.expiresAt));
    const actions = make('div', 'approval-actions');
    const result = make('p', 'approval-result');
    result.setAttribute('role', 'status');
    result.hidden = true;
    const problem = make('p', 'approval-problem');
    problem.setAttribute('role', 'alert');
    problem.hidden = true;
    element.append(actions, result, problem);
    if (approvalId === undefined) {
      actions.append(make('p', 'approval-note', 'This request cannot be answered from this page.'));
      return element;
    }
    element.dataset.approvalId = approvalId;
    const card = { approvalId, argsHash: firstString(data.argsHash), element, actions, result, problem, buttons: [] };
    if (data.mayDecide === false) {
      // The person who asked may not approve this themselves: the card says whom it waits for.
      actions.append(make('p', 'approval-note approval-waiting', waitingText(data)));
    } else {
      actions.append(make('p', 'approval-note approval-who', 'You can approve this.'));
      for (const [label, decision] of [
        ['Approve', 'granted'],
        ['Deny', 'denied'],
      ]) {
        const button = make('button', decision === 'granted' ? 'approve' : 'deny', label);
        button.type = 'button';
        button.addEventListener('click', () => {
          void decide(card, decision);
        });
        card.buttons.push(button);
        actions.append(button);
      }
    }
    register(card);
    // A part that already carries its outcome (a request shown again after it was decided).
    if (FINAL_STATES.has(data.status)) settle(approvalId, data.status, firstString(data.decidedBy), firstString(data.decidedAt));
    return element;
  }

  return {
    render,
    settle,
    /** Whether a card for `approvalId` is on the page. */
    has: (approvalId) => cards.has(approvalId),
  };
}
