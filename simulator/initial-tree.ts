/**
 * The tree a fresh simulator (or a factory Reset) starts from: every object and attribute the spec
 * shows, with plausible values of the stated types, plus realistic extras (sensors with a uint64
 * beyond 2^53, LEDs, power cap, a user, attribute-less objects, intermediate nodes).
 */
import { createHash } from 'node:crypto';
import { DbusObject, type Method, type Property } from './model.js';
import type { FaultSet } from './faults.js';
import type { DbusValue } from './types.js';

export interface TreeOptions {
  namespace: string;
  entries: number;
  objects: number;
  faults: FaultSet;
}

const ro = (signature: string, value: DbusValue, enumValues?: readonly string[]): Property => ({
  signature,
  value,
  writable: false,
  enumValues,
});
const rw = (signature: string, value: DbusValue, enumValues?: readonly string[]): Property => ({
  signature,
  value,
  writable: true,
  enumValues,
});

/** Microseconds, moving in whole seconds so that two reads a moment apart usually agree. */
function elapsedClock(offsetSeconds: number): () => bigint {
  return () => BigInt(Math.floor(Date.now() / 1000) + offsetSeconds) * 1_000_000n;
}

export function versionId(version: string): string {
  return createHash('sha512').update(version).digest('hex').slice(0, 8);
}

/** Host state values, in the namespace the (possibly faulty) simulator shows. */
export function hostStateValue(ns: string, faults: FaultSet, state: 'Off' | 'Running'): string {
  const word = faults.has('host-enum-wrong-namespace') ? 'other_vendor' : ns;
  return `xyz.${word}.State.Host.HostState.${state}`;
}

export const DELETE_METHODS: Record<string, Method> = { Delete: { args: [] } };

export function buildInitialTree(opts: TreeOptions): DbusObject[] {
  const { namespace: ns, faults } = opts;
  const I = `xyz.${ns}`;
  const root = `/xyz/${ns}`;
  const out: DbusObject[] = [];
  const obj = (rel: string): DbusObject => {
    const o = new DbusObject(`${root}/${rel}`);
    out.push(o);
    return o;
  };
  const objectManager = 'org.freedesktop.DBus.ObjectManager';

  // Top-level objects without attributes (GET answers {}); time, state, control, sensors and led
  // exist only as intermediate nodes above their objects.
  for (const name of ['dump', 'logging', 'network', 'inventory', 'user']) {
    obj(name).addInterface(objectManager);
  }

  // --- software -------------------------------------------------------------------------------
  obj('software')
    .addInterface(objectManager)
    .addInterface(`${I}.Common.TFTP`, {}, { DownloadViaTFTP: { args: ['s', 's'] } })
    .addInterface(`${I}.Common.FactoryReset`, {}, { Reset: { args: [] } });
  const running = '2.14.0-mgmt';
  obj(`software/${versionId(running)}`)
    .addInterface(`${I}.Software.Version`, {
      Version: ro('s', running),
      Purpose: ro('s', `${I}.Software.Version.VersionPurpose.BMC`),
    })
    .addInterface(`${I}.Software.Activation`, {
      Activation: ro('s', `${I}.Software.Activation.Activations.Active`),
      RequestedActivation: ro('s', `${I}.Software.Activation.RequestedActivations.None`),
    })
    .addInterface(`${I}.Software.RedundancyPriority`, { Priority: ro('y', 0) });

  // --- inventory ------------------------------------------------------------------------------
  obj('inventory/system')
    .addInterface(`${I}.Inventory.Item`, {
      Present: faults.has('present-as-string') ? ro('s', '1') : ro('b', true),
      PrettyName: ro('s', 'Management Reference System'),
    })
    .addInterface(`${I}.Inventory.Decorator.Asset`, {
      BuildDate: ro('s', '2024-03-18 09:30:00'),
      Manufacturer: ro('s', 'Example Systems'),
      Model: ro('s', 'MRS-2U'),
      PartNumber: ro('s', 'MRS-2U-0001'),
      ...(!faults.has('system-lacks-serial') && { SerialNumber: ro('s', 'SN0123456789') }),
    })
    .addInterface(`${I}.Inventory.Decorator.AssetTag`, { AssetTag: rw('s', 'ASSET-0001') })
    .addInterface(`${I}.Inventory.Decorator.Cacheable`, { Cached: ro('b', false) })
    .addInterface(`${I}.Inventory.Decorator.Replaceable`, { FieldReplaceable: ro('b', false) })
    .addInterface(`${I}.Inventory.Item.System`);
  obj('inventory/system/chassis')
    .addInterface(`${I}.Inventory.Item`, { Present: ro('b', true), PrettyName: ro('s', 'Chassis') })
    .addInterface(`${I}.Inventory.Item.Chassis`, {
      Type: ro('s', `${I}.Inventory.Item.Chassis.ChassisType.RackMount`),
    })
    .addInterface(`${I}.Inventory.Decorator.Meta`, {
      Properties: ro('a{sv}', { Slot: 1, Label: 'front', Slots: [1, 2] }),
    });
  obj('inventory/system/chassis/motherboard/cpu0')
    .addInterface(`${I}.Inventory.Item`, { Present: ro('b', true), PrettyName: ro('s', 'CPU 0') })
    .addInterface(`${I}.Inventory.Item.Cpu`, { CoreCount: ro('q', 32), Family: ro('s', 'Generic') });

  // --- time -----------------------------------------------------------------------------------
  const elapsed = (offset: number): Property =>
    faults.has('elapsed-as-string')
      ? { signature: 's', value: '', writable: false, live: () => String(elapsedClock(offset)()) }
      : { signature: 't', value: 0n, writable: false, live: elapsedClock(offset) };
  obj('time/bmc').addInterface(`${I}.Time.EpochTime`, { Elapsed: elapsed(0) });
  obj('time/host').addInterface(`${I}.Time.EpochTime`, { Elapsed: elapsed(-3600) });
  obj('time/owner').addInterface(`${I}.Time.Owner`, {
    TimeOwner: ro('s', `xyz.${faults.has('time-enum-wrong-namespace') ? 'other_vendor' : ns}.Time.Owner.Owners.BMC`),
  });
  obj('time/sync_method').addInterface(`${I}.Time.Synchronization`, {
    TimeSyncMethod: ro('s', `${I}.Time.Synchronization.Method.NTP`),
  });

  // --- state ----------------------------------------------------------------------------------
  const transitions = [`${I}.State.Host.Transition.Off`, `${I}.State.Host.Transition.On`];
  obj('state/host0')
    .addInterface(`${I}.State.Host`, {
      CurrentHostState: ro('s', hostStateValue(ns, faults, 'Off')),
      RequestedHostTransition: rw('s', `${I}.State.Host.Transition.Off`, transitions),
    })
    .addInterface(`${I}.State.Boot.Progress`, {
      BootProgress: ro('s', `${I}.State.Boot.Progress.ProgressStages.Unspecified`),
    })
    .addInterface(`${I}.State.OperatingSystem.Status`, {
      OperatingSystemState: ro('s', `${I}.State.OperatingSystem.Status.OSStatus.Inactive`),
    })
    .addInterface(`${I}.Control.Boot.RebootAttempts`, { AttemptsLeft: ro('u', 3) });
  obj('state/bmc0').addInterface(`${I}.State.BMC`, {
    CurrentBMCState: ro('s', `${I}.State.BMC.BMCState.Ready`),
  });

  // --- network --------------------------------------------------------------------------------
  obj('network/config').addInterface(`${I}.Network.SystemConfiguration`, {
    HostName: ro('s', 'mgmt-bmc'),
    DefaultGateway: ro('s', '192.0.2.1'),
  });
  if (!faults.has('no-dhcp-object')) {
    obj('network/config/dhcp').addInterface(`${I}.Network.DHCPConfiguration`, {
      DNSEnabled: ro('b', true),
      NTPEnabled: ro('b', true),
      HostNameEnabled: ro('b', false),
    });
  }
  obj('network/eth0')
    .addInterface(`${I}.Network.EthernetInterface`, {
      InterfaceName: ro('s', 'eth0'),
      Speed: ro('u', 1000),
      AutoNeg: ro('b', true),
      DHCPEnabled: ro('b', false),
      Nameservers: ro('as', ['192.0.2.53']),
      // Empty on a BMC without configured NTP servers or search domains: empty arrays are where
      // bmcweb's attr/ route answers 404 while the object maps them to [] (see the bmcweb dialect).
      NTPServers: ro('as', []),
      DomainName: ro('as', []),
    })
    .addInterface(`${I}.Network.MACAddress`, { MACAddress: ro('s', '02:00:5e:00:53:01') });
  obj('network/eth0/ipv4/5a1e7b2c').addInterface(`${I}.Network.IP`, {
    Address: ro('s', '192.0.2.10'),
    Gateway: ro('s', '192.0.2.1'),
    Origin: ro('s', `${I}.Network.IP.AddressOrigin.Static`),
    PrefixLength: ro('y', 24),
    Type: ro('s', `${I}.Network.IP.Protocol.IPv4`),
  });
  obj('network/eth0/ipv6/9c3d4e11').addInterface(`${I}.Network.IP`, {
    Address: ro('s', 'fe80::5eff:fe00:5301'),
    Gateway: ro('s', ''),
    Origin: ro('s', `${I}.Network.IP.AddressOrigin.LinkLocal`),
    PrefixLength: ro('y', 64),
    Type: ro('s', `${I}.Network.IP.Protocol.IPv6`),
  });
  obj('network/host0/intf').addInterface(`${I}.Network.EthernetInterface`, {
    InterfaceName: ro('s', 'host0'),
  });
  obj('network/host0/intf/addr').addInterface(`${I}.Network.IP`, {
    Address: ro('s', '198.51.100.20'),
    Gateway: ro('s', '198.51.100.1'),
    Origin: ro('s', `${I}.Network.IP.AddressOrigin.Static`),
    PrefixLength: ro('y', 24),
    Type: ro('s', `${I}.Network.IP.Protocol.IPv4`),
  });

  // --- logging --------------------------------------------------------------------------------
  const base = 1_710_000_000_000n;
  for (let id = 1; id <= opts.entries; id++) {
    const name = faults.has('entry-id-not-integer') ? `e${id}` : String(id);
    obj(`logging/entry/${name}`)
      .addInterface(`${I}.Logging.Entry`, {
        Id: ro('u', id),
        Message: ro('s', `${I}.Common.Error.Event${id}`),
        // Writable, as phosphor-logging has it: a lab marks an entry resolved.
        Resolved: rw('b', false),
        Severity: ro('s', `${I}.Logging.Entry.Level.${id % 2 ? 'Informational' : 'Warning'}`),
        Timestamp: ro('t', base + BigInt(id) * 60_000n),
        AdditionalData: ro('as', [`SOURCE=sensor${id}`]),
      })
      .addInterface(`${I}.Object.Delete`, {}, DELETE_METHODS);
  }

  // --- sensors --------------------------------------------------------------------------------
  obj('sensors/temperature/ambient')
    .addInterface(`${I}.Sensor.Value`, {
      Value: ro('d', 23.5),
      Unit: ro('s', `${I}.Sensor.Value.Unit.DegreesC`),
      MaxValue: ro('d', 127),
      MinValue: ro('d', -128),
    })
    .addInterface(`${I}.Sensor.Threshold.Warning`, {
      WarningHigh: ro('d', 40),
      WarningLow: ro('d', 5),
      WarningAlarmHigh: ro('b', false),
      WarningAlarmLow: ro('b', false),
    });
  obj('sensors/fan_tach/fan0').addInterface(`${I}.Sensor.Value`, {
    Value: ro('d', 5400),
    Unit: ro('s', `${I}.Sensor.Value.Unit.RPMS`),
  });
  obj('sensors/power/total_power')
    .addInterface(`${I}.Sensor.Value`, {
      Value: ro('d', 312.25),
      Unit: ro('s', `${I}.Sensor.Value.Unit.Watts`),
    })
    .addInterface(`${I}.Sensor.Accumulate`, {
      // 2^53 + 1: a double cannot hold it.
      TotalEnergy: ro('t', 9007199254740993n),
    });
  obj('sensors/counters/bus_errors').addInterface(`${I}.Sensor.Counter`, {
    Count: ro('t', 18446744073709551615n),
    Offset: ro('x', -9007199254740993n),
  });

  // --- led ------------------------------------------------------------------------------------
  if (!faults.has('missing-top-level-led')) {
    obj('led/groups/enclosure_identify').addInterface(`${I}.Led.Group`, { Asserted: rw('b', false) });
    obj('led/groups/bmc_booted').addInterface(`${I}.Led.Group`, { Asserted: ro('b', true) });
    const action = (a: string): string => `${I}.Led.Physical.Action.${a}`;
    obj('led/physical/identify').addInterface(`${I}.Led.Physical`, {
      State: rw('s', action('Off'), ['Off', 'On', 'Blink'].map(action)),
      DutyOn: ro('y', 50),
      Color: ro('s', `${I}.Led.Physical.Palette.Blue`),
    });
  }

  // --- control --------------------------------------------------------------------------------
  obj('control/power_cap').addInterface(`${I}.Control.Power.Cap`, {
    PowerCap: rw('u', 600),
    PowerCapEnable: rw('b', false),
  });
  obj('control/host0/boot').addInterface(`${I}.Control.Boot.Source`, {
    BootSource: ro('s', `${I}.Control.Boot.Source.Sources.Default`),
  });

  // --- user -----------------------------------------------------------------------------------
  obj('user/root').addInterface(`${I}.User.Attributes`, {
    UserEnabled: ro('b', true),
    UserGroups: ro('as', ['ipmi', 'redfish', 'web']),
    UserPrivilege: ro('s', 'priv-admin'),
    UserLockedForFailedAttempt: ro('b', false),
  });

  // --- generated bulk objects (load and scale tests) ------------------------------------------
  for (let i = 0; i < opts.objects; i++) {
    obj(`inventory/generated/item${i}`)
      .addInterface(`${I}.Inventory.Item`, { Present: ro('b', i % 7 !== 0), PrettyName: ro('s', `Item ${i}`) })
      .addInterface(`${I}.Inventory.Decorator.Asset`, { SerialNumber: ro('s', `GEN${String(i).padStart(8, '0')}`) })
      .addInterface(`${I}.Inventory.Decorator.Index`, { Index: ro('u', i) });
  }

  if (faults.has('object-outside-namespace')) {
    const stray = new DbusObject(`/org/${ns}/sensors/stray`);
    stray.addInterface(`${I}.Sensor.Value`, { Value: ro('d', 1) });
    out.push(stray);
  }
  return out;
}
