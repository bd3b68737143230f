/**
 * A throwaway PostgreSQL cluster in a temp folder, for tests, CI and the benchmark (DESIGN.md machine
 * facts: "tests and CI start their own cluster in a temp folder (initdb, pg_ctl)"; never a server that
 * happens to run already). Uses Debian's PostgreSQL binaries (package `postgresql`, found under
 * /usr/lib/postgresql/<version>/bin, the newest first, else on PATH). PostgreSQL refuses to run as
 * root, so under root the cluster's programs run as the `postgres` user the Debian package creates
 * (setpriv), in a folder that user owns.
 *
 * The server listens on 127.0.0.1 at a free port, where the superuser `console` signs in with a
 * random password (scram-sha-256: any other process on the host can reach loopback — a sandboxed skill
 * with network on did, as superuser, while this was trust), and on a Unix socket in the cluster's
 * folder (mode 0700, its owner's alone) with trust.
 */
import { execFileSync, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

/** The database user the cluster is made with (the superuser; its password is in the cluster's `url`). */
export const CLUSTER_USER = "console";

/** Longest pg_ctl waits for the server to start or stop, in seconds. */
const PG_CTL_WAIT_S = 60;

/**
 * The folder of Debian's PostgreSQL programs (initdb, pg_ctl, postgres): the newest
 * /usr/lib/postgresql/<version>/bin that has them, else the folder of `initdb` on PATH. Throws an
 * Error naming the Debian package when there is none.
 */
export function postgresBinDir() {
  const root = "/usr/lib/postgresql";
  const versions = fs.existsSync(root)
    ? fs
        .readdirSync(root)
        .filter((name) => /^\d+$/.test(name) && fs.existsSync(path.join(root, name, "bin", "initdb")))
        .sort((a, b) => Number(b) - Number(a))
    : [];
  if (versions.length > 0) return path.join(root, versions[0], "bin");
  for (const dir of (process.env.PATH ?? "").split(path.delimiter)) {
    if (dir && fs.existsSync(path.join(dir, "initdb")) && fs.existsSync(path.join(dir, "pg_ctl"))) return dir;
  }
  throw new Error("PostgreSQL's server programs (initdb, pg_ctl) are not installed: apt-get install postgresql");
}

/** A free TCP port on 127.0.0.1 (bound and released; the cluster takes it right after). */
function freePort() {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.unref();
    server.on("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

/** uid and gid of `name` from /etc/passwd, or null. */
function systemUser(name) {
  const line = fs
    .readFileSync("/etc/passwd", "utf8")
    .split("\n")
    .find((entry) => entry.startsWith(`${name}:`));
  if (!line) return null;
  const [, , uid, gid] = line.split(":");
  return { uid: Number(uid), gid: Number(gid) };
}

/** The user the cluster's programs run as: `postgres` under root (PostgreSQL refuses root), else null (the caller's own). */
function clusterUser() {
  if (process.getuid?.() !== 0) return null;
  const user = systemUser("postgres");
  if (!user) throw new Error("PostgreSQL does not run as root and there is no postgres user (apt-get install postgresql creates it)");
  return user;
}

/** Runs one of the cluster's programs (`bin/<program>`) in `dir`, as `runAs` when given; returns its stdout, throws on failure. */
function runClusterProgram(bin, runAs, dir, program, args) {
  const [command, argv] = runAs
    ? ["setpriv", [`--reuid=${runAs.uid}`, `--regid=${runAs.gid}`, "--clear-groups", "--", path.join(bin, program), ...args]]
    : [path.join(bin, program), args];
  return execFileSync(command, argv, { cwd: dir, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"], env: { ...process.env, LC_ALL: "C", TZ: "UTC" } });
}

/**
 * Starts the reaper of the cluster in `dir`: a detached process (its own session, so a kill of the
 * owner's process group spares it) that stops the server (immediate shutdown) and removes the folder
 * once process `ownerPid` is gone — a test run or an e2e server killed with SIGKILL left PostgreSQL
 * running with its folder. It exits on its own once the folder is gone (a normal stop()).
 */
function reapWhenGone(ownerPid, dir) {
  spawn(process.execPath, [fileURLToPath(import.meta.url), "--reap", String(ownerPid), dir], { detached: true, stdio: "ignore" }).unref();
}

/** The reaper's loop (reapWhenGone): polls every REAP_POLL_MS. */
const REAP_POLL_MS = 1000;
async function reap(ownerPid, dir) {
  const alive = () => {
    try {
      process.kill(ownerPid, 0);
      return true;
    } catch (error) {
      return error.code === "EPERM";
    }
  };
  while (fs.existsSync(dir) && alive()) await new Promise((resolve) => setTimeout(resolve, REAP_POLL_MS));
  if (!fs.existsSync(dir)) return;
  try {
    runClusterProgram(postgresBinDir(), clusterUser(), dir, "pg_ctl", ["-D", path.join(dir, "data"), "-m", "immediate", "-w", "-t", String(PG_CTL_WAIT_S), "stop"]);
  } catch {
    // Not running any more: only the folder is left.
  }
  fs.rmSync(dir, { recursive: true, force: true });
}

if (process.argv[2] === "--reap" && process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  await reap(Number(process.argv[3]), process.argv[4]);
}

/**
 * Starts a new PostgreSQL cluster in a fresh temp folder (under `parent`, default the system temp
 * folder) and creates `database` (default `console`) in it. `durable: false` (the default, for tests)
 * turns fsync and synchronous_commit off: a test's cluster is thrown away, and with them on every
 * commit waits for the disk; a benchmark should ask for `durable: true` to measure what an operator runs.
 * `maxConnections` (default 200) is the server's max_connections.
 * Resolves `{ url, port, dir, user, database, log, stop(), pause(), resume(), createDatabase(name), serverPid() }`
 * (`dir` is also where its Unix socket is; pause/resume stop and start the server again on the same folder
 * and port; createDatabase makes another database, a lowercase SQL identifier, and returns its URL;
 * serverPid is the postmaster's pid, null while the server is down): `url` is a
 * `postgresql://console:<password>@127.0.0.1:<port>/<database>` URL; `stop()` stops the server (fast shutdown)
 * and removes the folder, and is idempotent; should the calling process die first, a reaper does it
 * (reapWhenGone). Rejects with the server's log when it does not start.
 */
export async function startPostgresCluster({ parent = os.tmpdir(), database = CLUSTER_USER, durable = false, maxConnections = 200 } = {}) {
  const bin = postgresBinDir();
  const dir = fs.mkdtempSync(path.join(parent, "skill-console-pg-"));
  const dataDir = path.join(dir, "data");
  const log = path.join(dir, "server.log");
  const runAs = clusterUser();
  if (runAs) fs.chownSync(dir, runAs.uid, runAs.gid);
  fs.chmodSync(dir, 0o700);
  const run = (program, args) => runClusterProgram(bin, runAs, dir, program, args);
  let started = false;
  const stop = () => {
    if (started) {
      started = false;
      try {
        run("pg_ctl", ["-D", dataDir, "-m", "fast", "-w", "-t", String(PG_CTL_WAIT_S), "stop"]);
      } catch {
        // Already gone (killed by a test): only the folder is left to remove.
      }
    }
    fs.rmSync(dir, { recursive: true, force: true });
  };
  try {
    const password = randomBytes(18).toString("base64url");
    const passwordFile = path.join(dir, "initdb-password");
    fs.writeFileSync(passwordFile, `${password}\n`, { mode: 0o600 });
    if (runAs) fs.chownSync(passwordFile, runAs.uid, runAs.gid);
    try {
      run("initdb", ["-D", dataDir, "-U", CLUSTER_USER, "--auth-local=trust", "--auth-host=scram-sha-256", `--pwfile=${passwordFile}`, "-E", "UTF8", "--locale=C", ...(durable ? [] : ["--no-sync"])]);
    } finally {
      fs.rmSync(passwordFile, { force: true });
    }
    const port = await freePort();
    const settings = [
      `port = ${port}`,
      "listen_addresses = '127.0.0.1'",
      `unix_socket_directories = '${dir}'`,
      `max_connections = ${maxConnections}`,
      "timezone = 'UTC'",
      ...(durable ? [] : ["fsync = off", "synchronous_commit = off", "full_page_writes = off"]),
    ];
    fs.appendFileSync(path.join(dataDir, "postgresql.conf"), `\n# skill console test cluster\n${settings.join("\n")}\n`);
    run("pg_ctl", ["-D", dataDir, "-l", log, "-w", "-t", String(PG_CTL_WAIT_S), "start"]);
    started = true;
    reapWhenGone(process.pid, dir);
    const urlOf = (name) => `postgresql://${CLUSTER_USER}:${password}@127.0.0.1:${port}/${name}`;
    const createDatabase = (name) => {
      if (!/^[a-z_][a-z0-9_]{0,62}$/.test(name)) throw new Error(`not a database name this helper creates: ${JSON.stringify(name)}`);
      run("psql", ["-h", dir, "-p", String(port), "-U", CLUSTER_USER, "-d", "postgres", "-v", "ON_ERROR_STOP=1", "-q", "-c", `CREATE DATABASE "${name}"`]);
      return urlOf(name);
    };
    if (database !== "postgres") createDatabase(database);
    // A restart, for tests of an outage: the server stops (fast shutdown: sessions are cut) and starts again on the same folder and port.
    const pause = () => {
      if (started) run("pg_ctl", ["-D", dataDir, "-m", "fast", "-w", "-t", String(PG_CTL_WAIT_S), "stop"]);
      started = false;
    };
    const resume = () => {
      if (!started) run("pg_ctl", ["-D", dataDir, "-l", log, "-w", "-t", String(PG_CTL_WAIT_S), "start"]);
      started = true;
    };
    // The postmaster's pid: the first line of postmaster.pid while the server runs (null when it does not).
    const serverPid = () => {
      try {
        return Number(fs.readFileSync(path.join(dataDir, "postmaster.pid"), "utf8").split("\n")[0]) || null;
      } catch {
        return null;
      }
    };
    return { url: urlOf(database), port, dir, user: CLUSTER_USER, database, log, stop, pause, resume, createDatabase, serverPid };
  } catch (error) {
    const serverLog = fs.existsSync(log) ? fs.readFileSync(log, "utf8").slice(-4000) : "";
    stop();
    const stderr = error && typeof error === "object" && "stderr" in error ? String(error.stderr) : "";
    throw new Error(`the PostgreSQL cluster did not start: ${(error instanceof Error ? error.message : String(error)).split("\n")[0]}\n${stderr}${serverLog}`);
  }
}
