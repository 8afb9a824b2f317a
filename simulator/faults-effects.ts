/** Faults of effects of writes, deletes, uploads and actions on the whole tree, value domains, POST refusals. */
import type { FaultInfo } from './fault-info.js';

export const EFFECT_FAULTS = [
  {
    name: 'put-attr-writes-namesakes',
    requirement: 'EP-8',
    operator: 'collateral',
    description: 'PUT {path}/attr/{name} also stores the value in the attribute of that name on every sibling object that has one',
  },
  {
    name: 'put-attr-writes-neighbour-attr',
    requirement: 'EP-8',
    operator: 'collateral',
    description: 'PUT {path}/attr/{name} also stores the value in the next attribute of the object with the same D-Bus signature',
  },
  {
    name: 'put-object-applies-first-change',
    requirement: 'EP-9',
    operator: 'partial',
    description: 'PUT {path} with a map that changes several attributes applies the first change only, and answers success',
  },
  {
    name: 'put-object-writes-namesakes',
    requirement: 'EP-9',
    operator: 'collateral',
    description: "PUT {path} also stores the map's writable values in the attributes of those names on the sibling objects",
  },
  {
    name: 'delete-removes-next-sibling',
    requirement: 'EP-11',
    operator: 'collateral',
    description: 'DELETE of an instance also removes the instance listed after it under the same parent',
  },
  {
    name: 'upload-evicts-oldest',
    requirement: 'RULE-7',
    operator: 'collateral',
    description: 'an upload that registers a version also removes the first other non-active version under software/',
    knockOn: { 'ACT-1': 'DownloadViaTFTP registers its image the way an upload does: it evicts a version too' },
  },
  {
    name: 'upload-alters-other-versions',
    requirement: 'RULE-7',
    operator: 'collateral',
    description: 'an upload that registers a version also sets the Activation of the other versions of its purpose to Invalid',
    knockOn: { 'ACT-1': 'DownloadViaTFTP registers its image the way an upload does: it alters the other versions too' },
  },
  {
    name: 'tftp-evicts-version',
    requirement: 'ACT-1',
    operator: 'collateral',
    description: 'DownloadViaTFTP registers the version and removes every other non-active version under software/',
  },
  {
    name: 'reset-ignored',
    requirement: 'ACT-2',
    operator: 'acknowledged-not-done',
    description: 'Reset answers 200 and resets nothing',
  },
  {
    name: 'reset-keeps-versions',
    requirement: 'ACT-2',
    operator: 'partial',
    description: 'Reset restores the factory attribute values but keeps the uploaded versions',
  },
  {
    name: 'reset-keeps-writes',
    requirement: 'ACT-2',
    operator: 'partial',
    description: 'Reset removes the uploaded versions but keeps the written attribute values',
  },
  {
    name: 'delete-action-removes-next-sibling',
    requirement: 'EP-10',
    operator: 'collateral',
    description: 'POST {instance}/action/Delete also removes the instance listed after it under the same parent',
  },
] as const satisfies readonly FaultInfo[];
