export { createProgram, run, VERSION, type CommandFactory } from './program.js';
export { CliError, ExitCode } from './errors.js';
export { processIo, type Io } from './io.js';
export { renderTable, formatEvidence, formatRange, formatSide } from './report/table.js';
export { createDemoRepository, DEMO_BASE, type DemoRepository } from './demo/fixture.js';
export { codexServers, runDoctor, type DoctorEntry, type DoctorReport } from './commands/doctor.js';
