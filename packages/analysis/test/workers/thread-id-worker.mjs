// A stand-in parse worker for the pool's tests: answers each job with its thread id as an error message.
import { parentPort, threadId } from 'node:worker_threads';

parentPort.postMessage('ready');
parentPort.on('message', (jobs) => {
  parentPort.postMessage(jobs.map((job) => ({ id: job.id, error: `thread ${threadId}` })));
});
