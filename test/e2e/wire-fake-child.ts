// A tiny scriptable ZCode stand-in for wire-client tests: things the simulator
// does not do on purpose (answer late, echo the method in a response, ignore
// stdin EOF and SIGTERM). Run as `bun wire-fake-child.ts app-server --stdio`.
import { readLines } from "../../src/lines.ts";

if (process.argv.includes("--version")) {
  console.log(`zcode ${process.env.FAKE_VERSION ?? "0.15.3"}`);
  process.exit(0);
}
if (process.env.FAKE_IGNORE_TERM) process.on("SIGTERM", () => process.stderr.write("ignoring SIGTERM\n"));

const out = Bun.stdout.writer();
const send = (o: unknown) => {
  out.write(`${JSON.stringify(o)}\n`);
  out.flush();
};
const waiting = new Map<number | string, (m: { result?: unknown; error?: unknown }) => void>();
let nextOwnId = 0;
const ask = (method: string, params: unknown, id: number | string = ++nextOwnId) =>
  new Promise<{ result?: unknown; error?: unknown }>((resolve) => {
    waiting.set(id, resolve);
    send({ id, method, params });
  });

type P = Record<string, any>;
const handlers: Record<string, (id: number | string, p: P) => void | Promise<void>> = {
  echo: (id, p) => send({ id, result: p }),
  slow: async (id, p) => {
    await Bun.sleep(p.ms);
    send({ id, result: { slept: p.ms } });
  },
  never: () => {},
  fail: (id, p) => send({ id, error: { code: p.code ?? 1308, message: p.message ?? "prompt is running" } }),
  unknown: (id) => send({ id, error: { code: -32601, message: "Method not found" } }),
  "echo-with-method": (id, p) => send({ id, method: "echo-with-method", result: p }),
  junk: (id) => {
    out.write("this is not json\n");
    send({ id: 999999, result: "nobody asked" });
    send({ id, result: { after: "junk" } });
  },
  pid: (id) =>
    send({
      id,
      result: { pid: process.pid, pgid: Number(require("node:fs").readFileSync("/proc/self/stat", "utf8").split(") ")[1].split(" ")[2]) },
    }),
  crash: (id, p) => {
    for (let i = 1; i <= 30; i++) process.stderr.write(`stderr line ${i}\n`);
    process.stderr.write("fatal: exploded\n");
    process.exit(p.code ?? 3);
  },
  events: (id, p) => {
    for (const e of p.events) send({ method: "session/event", params: e });
    send({ id, result: {} });
  },
  // Ask the bridge something (e.g. an interaction) and return its answer.
  ask: async (id, p) => {
    const answers = [];
    for (let i = 0; i < (p.times ?? 1); i++) answers.push(await ask(p.method, p.params, p.ids?.[i]));
    send({ id, result: { answers } });
  },
};

await readLines(Bun.stdin.stream(), (line) => {
  const m = JSON.parse(line);
  if (m.jsonrpc !== undefined) process.stderr.write("got a jsonrpc field!\n");
  if (m.method === undefined) {
    waiting.get(m.id)?.(m);
    waiting.delete(m.id);
    return;
  }
  if (m.id === undefined) {
    if (m.method === "exit") process.exit(0);
    return;
  }
  const h = handlers[m.method];
  if (h) void h(m.id, m.params ?? {});
  else send({ id: m.id, error: { code: -32601, message: `no ${m.method}` } });
});
if (process.env.FAKE_IGNORE_EOF) setInterval(() => {}, 1000);
else process.exit(0);
