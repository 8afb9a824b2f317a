/**
 * On a BMC one new path gets its interfaces from several services, each in an InterfacesAdded of
 * its own. An uploaded version is the case the suites meet: phosphor-bmc-code-mgmt's image manager
 * (image_manager.cpp `Manager::processImage`) adds Version, FilePath and Delete; the updater
 * (item_updater.cpp `ItemUpdater::createActivation`, woken by that signal) adds Activation a little
 * later. Both field dialects deliver the simulator's one signal of such an object in those two parts.
 */
import { EventHub, type BusEvent, type InterfacesAdded, type PublishMeta } from '../events.js';

/** How long after the image manager's signal the updater's comes. */
export const UPDATER_DELAY_MS = 30;

/** The interfaces the updater adds to a version the image manager created. */
function isUpdaters(iface: string): boolean {
  return /\.Software\.Activation$/.test(iface);
}

export interface ServiceSignal {
  event: BusEvent;
  /** After the previous part of the same object, in ms. */
  delayMs: number;
}

/**
 * The signals one bus event is delivered as: an InterfacesAdded that holds the updater's interface
 * besides others is the image manager's signal, then the updater's; anything else is itself.
 */
export function byService(event: BusEvent): ServiceSignal[] {
  if (event.event !== 'InterfacesAdded') return [{ event, delayMs: 0 }];
  const names = Object.keys(event.interfaces);
  const updater = names.filter(isUpdaters);
  if (updater.length === 0 || updater.length === names.length) return [{ event, delayMs: 0 }];
  const part = (keep: (i: string) => boolean): InterfacesAdded => ({
    ...event,
    interfaces: Object.fromEntries(Object.entries(event.interfaces).filter(([i]) => keep(i))),
  });
  return [
    { event: part((i) => !isUpdaters(i)), delayMs: 0 },
    { event: part(isUpdaters), delayMs: UPDATER_DELAY_MS },
  ];
}

/**
 * The field dialects' hub: publishes each event as its services signal it, the first part now and
 * a later one after its delay; closing the hub cancels the signals still to come.
 */
export class ServicesHub extends EventHub {
  private readonly later = new Set<NodeJS.Timeout>();

  override publish(event: BusEvent, meta: PublishMeta = {}): void {
    let delay = 0;
    for (const part of byService(event)) {
      delay += part.delayMs;
      if (delay === 0) {
        super.publish(part.event, meta);
        continue;
      }
      const timer = setTimeout(() => {
        this.later.delete(timer);
        super.publish(part.event, meta);
      }, delay);
      timer.unref();
      this.later.add(timer);
    }
  }

  override close(): void {
    for (const timer of this.later) clearTimeout(timer);
    super.close();
  }
}
