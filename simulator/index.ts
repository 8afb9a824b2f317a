/** Public entry of the reference simulator. */
export { startSimulator, type SimulatorOptions, type RunningSimulator } from './server.js';
export { FAULTS, isFaultName, type FaultInfo } from './faults.js';
export { LATENCY_FAULTS } from './latency-faults.js';
export { simulatorTargetProfile, simulatorDeletablePrefix, type SimulatorTargetProfile, type WritableAttribute } from './target-profile.js';
export { startTftpServer, type TftpServerHandle } from './tftp-server.js';
export { versionId } from './initial-tree.js';
export { UPLOAD_FAILED } from './software.js';
export { runSimulatorCli, listFaultsText, siteFaultsText } from './main.js';
export { DIALECTS, isDialect, parseDialect, type DialectName, type DialectFamily } from './dialects/dialect.js';
export { dialectFamily, dialectDefaults } from './dialects/registry.js';
export { LATENCY_ROUTES, parseRouteLatency, type RouteLatency } from './route-latency.js';
