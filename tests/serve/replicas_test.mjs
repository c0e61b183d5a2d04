// Two `wgpt serve` replicas behind nginx (docs/serve-nginx.conf): requests spread over both, and
// when the replica serving a stream is killed, the client retries and gets its answer from the
// other one; later requests keep succeeding.
//
//   node tests/serve/replicas_test.mjs NGINX_URL MODEL_NAME PORT_A PID_A PORT_B PID_B
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const { default: OpenAI } = await import(
  pathToFileURL(path.join(root, '.deps/npm/openai/index.mjs')).href);
const [url, model, portA, pidA, portB, pidB] = process.argv.slice(2);
const replicas = [{ port: portA, pid: Number(pidA) }, { port: portB, pid: Number(pidB) }];
const client = new OpenAI({ baseURL: `${url}/v1`, apiKey: 'unused', maxRetries: 2, timeout: 300_000 });

let failures = 0;
function check(condition, message) {
  if (!condition) {
    console.log(`FAIL: ${message}`);
    failures += 1;
  }
}

// A series' value in a replica's /metrics.
async function metric(replica, series) {
  const text = await (await fetch(`http://127.0.0.1:${replica.port}/metrics`)).text();
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line ? Number(line.split(' ').pop()) : 0;
}
const completions = 'wgpt_requests_total{endpoint="/v1/completions",status="200"}';

// What `read` gives once `enough` holds for it (or after 5 s): a server counts a request when its
// response is written, which can be after the client has read it, so counts are awaited.
async function settled(read, enough) {
  let value = await read();
  for (let i = 0; i < 100 && !enough(value); i += 1) {
    await new Promise((resolve) => setTimeout(resolve, 50));
    value = await read();
  }
  return value;
}
const counted = (replica, expected) =>
  settled(() => metric(replica, completions), (value) => value >= expected);

// Requests spread over the replicas (round robin).
for (let i = 0; i < 6; i += 1) {
  await client.completions.create({ model, prompt: `Request ${i}`, max_tokens: 1 });
}
const served = await settled(() => Promise.all(replicas.map((r) => metric(r, completions))),
                             (counts) => counts[0] + counts[1] >= 6);
check(served.every((n) => n >= 2), `requests per replica: ${served}`);

// A stream whose replica dies: the client retries, and the other replica answers.
let chunks = 0;
async function streamWithRetries(attempts) {
  for (let attempt = 1; ; attempt += 1) {
    try {
      let finish = null;
      const events = await client.completions.create({
        model, prompt: 'A story', max_tokens: 12, seed: 5, stream: true });
      for await (const chunk of events) {
        chunks += 1;
        finish = chunk.choices[0]?.finish_reason ?? finish;
      }
      if (!finish) throw new Error('the stream ended without a finish_reason');
      return attempt;
    } catch (error) {
      console.log(`attempt ${attempt} failed (${error.message})${attempt < attempts ? ': retrying' : ''}`);
      if (attempt >= attempts) throw error;
    }
  }
}
const outcome = streamWithRetries(3);
let victim = null;
for (let i = 0; i < 600 && !victim; i += 1) {
  await new Promise((resolve) => setTimeout(resolve, 100));
  if (chunks === 0) continue;
  const busy = await Promise.all(replicas.map((r) => metric(r, 'wgpt_slots_busy')));
  victim = replicas[busy.indexOf(1)] ?? null;
}
check(victim !== null, 'no replica was seen serving the stream');
if (victim) {
  process.kill(victim.pid, 'SIGKILL');
  console.log(`killed the replica on port ${victim.port} mid-stream`);
}
const attempts = await outcome.catch((error) => {
  check(false, `the stream never succeeded: ${error.message}`);
  return 0;
});
check(attempts === 2, `the stream took ${attempts} attempts, expected 2 (one cut, one whole)`);

// The survivor takes everything from now on; it answered the stream's second attempt too.
const survivor = replicas.find((r) => r !== victim);
const before = await counted(survivor, served[replicas.indexOf(survivor)] + 1);
for (let i = 0; i < 4; i += 1) {
  const answer = await client.completions.create({ model, prompt: `After ${i}`, max_tokens: 1 });
  check(answer.choices[0].finish_reason === 'length', `request ${i} after the death`);
}
check(await counted(survivor, before + 4) - before === 4, 'the survivor answered the later requests');
const health = await fetch(`${url}/health`);
check(health.status === 200, `/health through nginx: ${health.status}`);

if (failures) {
  console.log(`${failures} replica check(s) failed`);
  process.exit(1);
}
console.log('replicas: all checks passed');
