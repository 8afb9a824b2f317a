/**
 * The host power state machine: a requested transition moves CurrentHostState after a short
 * delay, so subscribers always see the requested value change before the current one.
 */
import type { Bus } from './bus.js';
import { hostStateValue } from './initial-tree.js';

export class HostStateMachine {
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly bus: Bus,
    private readonly delayMs: number,
  ) {}

  get hostPath(): string {
    return `/xyz/${this.bus.namespace}/state/host0`;
  }

  /** Called after RequestedHostTransition was stored; a newer request supersedes a pending one. */
  requested(transition: string, immediately = false): void {
    const prefix = `xyz.${this.bus.namespace}.State.Host.Transition.`;
    if (!transition.startsWith(prefix)) return;
    const target = transition.slice(prefix.length) === 'On' ? 'Running' : 'Off';
    this.cancel();
    const move = () => {
      this.timer = undefined;
      const obj = this.bus.tree.get(this.hostPath);
      const ref = obj?.attributes().get('CurrentHostState');
      if (!ref) return;
      // The host's own move, set in motion by the request: a cause of its own, whatever wrote the request.
      const value = hostStateValue(this.bus.namespace, this.bus.faults, target);
      this.bus.withCause('action', () => this.bus.setProperty(this.hostPath, ref, 'CurrentHostState', value));
    };
    // Only the host-current-before-requested fault moves the state before the request is stored.
    if (immediately) move();
    else this.timer = setTimeout(move, this.delayMs);
  }

  cancel(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
  }
}
