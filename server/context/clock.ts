// The clock of agents' context: when counter-only versions are due for publication
// (publication.ts) and how long a playbook's head is kept (heads.ts). Tests move it by hand.
type Clock = () => number;
let clock: Clock = Date.now;

export function contextNow(): number {
  return clock();
}

/** Tests move time by hand; undefined goes back to the real clock. */
export function setContextClock(next: Clock | undefined): void {
  clock = next ?? Date.now;
}
