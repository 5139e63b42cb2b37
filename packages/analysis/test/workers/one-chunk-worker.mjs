// A stand-in parse worker that answers one chunk (each job with its text as an error message)
// and then exits, as a worker lost between chunks would.
import { parentPort } from 'node:worker_threads';

parentPort.postMessage('ready');
parentPort.on('message', (jobs) => {
  parentPort.postMessage(jobs.map((job) => ({ id: job.id, error: `seen ${new TextDecoder().decode(job.content).trim()}` })));
  setTimeout(() => process.exit(0), 5);
});
