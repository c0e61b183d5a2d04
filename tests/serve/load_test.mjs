// A load test of `wgpt serve`: rounds of concurrent streaming clients (the OpenAI client library,
// no retries), each of which must get its whole stream; the server's resident memory is read
// after every round and may not keep growing.
//
//   node tests/serve/load_test.mjs URL MODEL_NAME SERVER_PID CLIENTS ROUNDS MAX_TOKENS MAX_GROWTH_MIB
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const { default: OpenAI } = await import(
  pathToFileURL(path.join(root, '.deps/npm/openai/index.mjs')).href);
const [url, model, pid, ...numbers] = process.argv.slice(2);
const [clients, rounds, maxTokens, maxGrowthMiB] = numbers.map(Number);
const client = new OpenAI({ baseURL: `${url}/v1`, apiKey: 'unused', maxRetries: 0, timeout: 300_000 });

function residentMiB() {
  const line = fs.readFileSync(`/proc/${pid}/status`, 'utf8').split('\n').find((l) => l.startsWith('VmRSS:'));
  return Number(line.split(/\s+/)[1]) / 1024;
}

// One client's stream: ok when it ends with a finish_reason after max_tokens tokens of text.
async function stream(seed) {
  let text = '';
  let finish = null;
  let chunks = 0;
  const events = await client.completions.create({
    model, prompt: 'ROMEO:', max_tokens: maxTokens, seed, temperature: 0.8, stream: true });
  for await (const chunk of events) {
    chunks += 1;
    text += chunk.choices[0]?.text ?? '';
    finish = chunk.choices[0]?.finish_reason ?? finish;
  }
  if (finish !== 'length' || chunks !== maxTokens) {
    throw new Error(`stream ${seed}: ${chunks} chunks, finish_reason ${finish}`);
  }
  return text;
}

let failures = 0;
const table = [];
for (let round = 1; round <= rounds; round += 1) {
  const start = performance.now();
  const results = await Promise.allSettled(
    Array.from({ length: clients }, (_, i) => stream(round * 1000 + i)));
  const seconds = (performance.now() - start) / 1000;
  const failed = results.filter((r) => r.status === 'rejected');
  for (const f of failed.slice(0, 3)) console.log(`round ${round}: ${f.reason}`);
  failures += failed.length;
  table.push({ round, ok: clients - failed.length, failed: failed.length, seconds,
               tokens_per_second: (clients - failed.length) * maxTokens / seconds,
               rss_mib: residentMiB() });
}
console.log('round  ok  failed  seconds  tok/s  RSS MiB');
for (const r of table) {
  console.log(`${String(r.round).padStart(5)} ${String(r.ok).padStart(3)} ${String(r.failed).padStart(7)} ` +
              `${r.seconds.toFixed(1).padStart(8)} ${r.tokens_per_second.toFixed(0).padStart(6)} ` +
              `${r.rss_mib.toFixed(1).padStart(8)}`);
}
// The first round warms the server up (kernels compiled, pools filled); after it, memory must
// stay where it is.
const growth = table[table.length - 1].rss_mib - table[0].rss_mib;
console.log(`resident memory after round 1: ${table[0].rss_mib.toFixed(1)} MiB, ` +
            `growth since: ${growth.toFixed(1)} MiB (limit ${maxGrowthMiB})`);
if (failures > 0) {
  console.log(`FAIL: ${failures} of ${clients * rounds} streams failed`);
  process.exit(1);
}
if (growth > maxGrowthMiB) {
  console.log('FAIL: the server keeps growing under load');
  process.exit(1);
}
console.log(`load: ${clients * rounds} streams, none failed`);
