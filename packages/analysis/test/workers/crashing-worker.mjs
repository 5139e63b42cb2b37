// A stand-in parse worker for the pool's tests: answers each job with its text as an error
// message, and exits with code 3 on a job whose text is "crash".
import { parentPort } from 'node:worker_threads';

parentPort.postMessage('ready');
parentPort.on('message', (jobs) => {
  const results = [];
  for (const job of jobs) {
    const text = new TextDecoder().decode(job.content);
    if (text.trim() === 'crash') process.exit(3);
    results.push({ id: job.id, error: `seen ${text.trim()} in thread ${process.env.WORKER_MARK ?? ''}` });
  }
  parentPort.postMessage(results);
});
