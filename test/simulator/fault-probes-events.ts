/** Probes of the faults in simulator/faults-events.ts: each answers true when the simulator shows the fault. */
import { expect } from 'vitest';
import { CAP, eventsDuring, LED, session, type Probe } from './fault-probe-kit.js';
import { I, openSocket, sleep, subscribe } from './helpers.js';

/** Events of one change of the LED group that a subscription with `filter` receives. */
const ledEventsThrough =
  (filter: unknown): Probe =>
  async (sim) => {
    const s = await session(sim);
    return (await eventsDuring(s, filter, () => s.put(`${LED}/attr/Asserted`, 1))).length > 0;
  };

/** No event of the LED group's change through a filter that lists it beside another entry. */
const ledEventsLostThrough =
  (filter: unknown): Probe =>
  async (sim) =>
    !(await ledEventsThrough(filter)(sim));

const CAP_IFACE = `${I}.Control.Power.Cap`;
const LED_IFACE = `${I}.Led.Group`;

export const EVENT_PROBES: Record<string, Probe> = {
  // The LED group listed second, then first: its change never arrives through the entry not honoured.
  'paths-filter-first-entry-only': ledEventsLostThrough({ paths: [CAP, LED] }),
  'paths-filter-last-entry-only': ledEventsLostThrough({ paths: [LED, CAP] }),
  'interfaces-filter-first-entry-only': ledEventsLostThrough({ interfaces: [CAP_IFACE, LED_IFACE] }),
  'interfaces-filter-last-entry-only': ledEventsLostThrough({ interfaces: [LED_IFACE, CAP_IFACE] }),
  // A truncated last element: a string prefix of the path, not its parent.
  'paths-filter-string-prefix': ledEventsThrough({ paths: [LED.slice(0, -3)] }),
  'paths-filter-subtree': ledEventsThrough({ paths: [LED.slice(0, LED.lastIndexOf('/'))] }),
  'paths-filter-case-insensitive': ledEventsThrough({ paths: [LED.toUpperCase()] }),
  'interfaces-filter-prefix': ledEventsThrough({ interfaces: [`${I}.Led.Grou`] }),
  'interfaces-filter-case-insensitive': ledEventsThrough({ interfaces: [`${I}.led.group`] }),
  'events-before-filter': async (sim) => {
    const s = await session(sim);
    const ws = openSocket(sim.url, s.cookie);
    const got: unknown[] = [];
    ws.on('message', (d) => got.push(d));
    await new Promise((resolve, reject) => ws.once('open', resolve).once('error', reject));
    const witness = await subscribe(sim.url, s.cookie, {});
    await s.put(`${LED}/attr/Asserted`, 1);
    await witness.waitFor(1, 2_000).catch(() => undefined);
    await sleep(100);
    witness.close();
    ws.close();
    return got.length > 0;
  },
  'properties-changed-all': async (sim) => {
    const s = await session(sim);
    // The power cap's interface has two properties; one of them changes.
    const got = await eventsDuring(s, {}, () => s.put(`${CAP}/attr/PowerCap`, 700));
    return got.some((e) => Object.keys(e.properties ?? {}).length > 1);
  },
  'properties-changed-coalesced': async (sim) => {
    const s = await session(sim);
    // Two changes of one interface sent together: one after the other, a busy machine can space
    // them wider than the fault's merge window.
    const got = await eventsDuring(
      s,
      { paths: [CAP] },
      async () => {
        await Promise.all([s.put(`${CAP}/attr/PowerCap`, 701), s.put(`${CAP}/attr/PowerCapEnable`, true)]);
      },
      300,
    );
    return got.length < 2;
  },
  'event-on-refused-write': async (sim) => {
    const s = await session(sim);
    // A wrongly typed value for the power cap (refused with 400) and a write of a read-only attribute (403).
    const got = await eventsDuring(s, {}, async () => {
      expect((await s.put(`${CAP}/attr/PowerCap`, 'not a number')).status).toBe(400);
      expect((await s.put(`${LED.replace('enclosure_identify', 'bmc_booted')}/attr/Asserted`, 0)).status).toBe(403);
      // A change the witness sees, so that the probe waits on a signalled change either way.
      await s.put(`${LED}/attr/Asserted`, 1);
    });
    return got.some((e) => e.path === CAP || String(e.path).endsWith('/bmc_booted'));
  },
  'event-on-same-value': async (sim) => {
    const s = await session(sim);
    const held = (await s.get(`${CAP}/attr/PowerCap`)).body.data;
    const got = await eventsDuring(s, {}, async () => {
      await s.put(`${CAP}/attr/PowerCap`, held);
      await s.put(`${LED}/attr/Asserted`, 1);
    });
    return got.some((e) => e.path === CAP);
  },
};
