/**
 * Whether another site opened the inbox (issue 28 #7): the server marks such a page load in the
 * page's head, and the login page leaves the same word in session storage (server/http/arrival.ts).
 * Until the user's first click or key press in the page, nothing is marked read: a link or
 * `window.open` on another site can name a message, but it cannot read one for the user.
 */
const NAME = 'pigeonhole-arrival';

let waiting: (() => void)[] | null = openedElsewhere() ? [] : null;

function openedElsewhere(): boolean {
  if (typeof document === 'undefined') return false;
  let stored = false;
  try {
    stored = sessionStorage.getItem(NAME) === 'elsewhere';
    sessionStorage.removeItem(NAME);
  } catch {
    // Storage refused (a privacy setting): only the page's own mark counts.
  }
  return stored || document.querySelector(`meta[name="${NAME}"]`) !== null;
}

function userActed(event: Event): void {
  if (!event.isTrusted || waiting === null) return;
  const actions = waiting;
  waiting = null;
  removeEventListener('click', userActed, true);
  removeEventListener('keydown', userActed, true);
  for (const action of actions) action();
}

if (waiting !== null) {
  // Capturing: the click that reaches a button runs these first, then the button's own handler.
  addEventListener('click', userActed, true);
  addEventListener('keydown', userActed, true);
}

/**
 * Runs `action` now, or (when another site opened the page) at the user's first click or key
 * press; the function returned cancels a wait.
 */
export function afterUserActs(action: () => void): () => void {
  if (waiting === null) {
    action();
    return () => undefined;
  }
  const list = waiting;
  list.push(action);
  return () => {
    const at = list.indexOf(action);
    if (at >= 0) list.splice(at, 1);
  };
}
