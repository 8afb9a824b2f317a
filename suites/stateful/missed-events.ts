/**
 * A change a subscription must have received and did not, told apart. Received by no one: the
 * change raised no event (a repeat tells a lost InterfacesAdded from none at all). Received by
 * others: a repeat of it tells a lost event (the repeat arrives) from a filter that drops it (the
 * repeat does not).
 */
import { show } from '../harness/assert.js';
import { admission, filterRequirement, type Change } from '../events/engine/filters.js';
import { described } from '../events/engine/subscription.js';
import { waitUntil } from '../events/engine/waits.js';
import { upload } from './views-versions.js';
import { describeChange, type JudgedSubscription, type ViewsWorld } from './views-world.js';
import { write } from './views-writes.js';

export async function missed(world: ViewsWorld, s: JudgedSubscription, change: Change): Promise<void> {
  const key = `missing#${change.no}`;
  if (s.reported.has(key) || !s.expected.some((e) => e.change === change)) return;
  s.reported.add(key);
  const others = world.subs.filter((o) => o !== s && admission(o.filter, change) === 'must');
  const elsewhere = others.filter((o) => world.received(o, change)).map((o) => o.what);
  const what = describeChange(change);
  const admitting = [s, ...others].map((o) => `${o.what} ${show(o.filter)}`).join(', ');
  const raisedNone = (kind: string) => `${what} raised no ${kind} on any subscription whose filter admits it (${admitting})`;
  s.expected = s.expected.filter((e) => e.change !== change);
  if (elsewhere.length === 0 && change.kind === 'PropertiesChanged') return world.find('EV-8', raisedNone('PropertiesChanged'));
  if (world.confirming) return;
  // Received nowhere: two repeats, so that a subscription losing every third event cannot lose all three.
  const repeats = await repeated(world, s, change, elsewhere.length === 0 ? 2 : 1);
  if (repeats.length === 0) return;
  if (elsewhere.length === 0) {
    const lost = repeats.find((r) => world.subs.some((o) => world.received(o, r)));
    if (lost)
      return world.find(
        'EV-8',
        `${what} raised no InterfacesAdded on any subscription that admits it, though its repeat (${describeChange(lost)}) did`,
      );
    return world.find('EV-3', `${raisedNone('InterfacesAdded')}, nor did its repeats`);
  }
  if (world.received(s, repeats[0]!))
    return world.find(
      'EV-8',
      `${described(s)} lost the event of ${what}, which ${elsewhere.join(', ')} received; the event of its repeat arrived`,
    );
  world.find(
    filterRequirement(s.filter),
    `${described(s)} received neither ${what} nor its repeat, which its filter admits and ${elsewhere.join(', ')} received`,
  );
}

/** `count` repeats of `change`, each waited for on `s`; none of them is judged missing later. */
async function repeated(world: ViewsWorld, s: JudgedSubscription, change: Change, count: number): Promise<Change[]> {
  const out: Change[] = [];
  world.confirming = true;
  try {
    for (let i = 0; i < count; i++) {
      const repeat = await repeatOf(world, change);
      if (!repeat) break;
      out.push(repeat);
      const start = performance.now();
      const seen = () => world.received(s, repeat) || s.socket.closed;
      await waitUntil(seen, () => world.deadlineFor(s, repeat, start), [s.socket]);
    }
  } finally {
    world.confirming = false;
  }
  for (const r of out) {
    s.reported.add(`missing#${r.no}`);
    if (!world.received(s, r)) s.expected = s.expected.filter((e) => e.change !== r);
  }
  return out;
}

/** The same kind of change once more, through the endpoint that signals it most plainly. */
async function repeatOf(world: ViewsWorld, change: Change): Promise<Change | undefined> {
  world.rec.note(`to tell a lost event from a filter, ${describeChange(change)} was repeated`);
  if (change.kind === 'PropertiesChanged') {
    const w = world.d.writables.find((x) => x.attr.path === change.path && x.attr.name === change.name);
    return w ? write(world, w, 'attr', { step: false }) : undefined;
  }
  return upload(world, world.newVersion(), 'POST');
}
