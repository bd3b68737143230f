/**
 * The sign-in rate limit counts per account and client address (issue 4 point 1), so the address must
 * be one a client cannot choose: scripts/console-server.mjs stamps `x-skill-console-peer` from the TCP
 * socket after dropping any copy the client sent (Next.js itself keeps a client's X-Forwarded-For).
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PEER_ADDRESS_HEADER as SERVER_HEADER } from "@/lib/server/auth/client-address";
// @ts-expect-error -- a plain ESM script without type declarations
import { keepConnectionsAlive, KEEP_ALIVE_MS, limitConnections, normalisePeerAddress, parseTrustedProxies as parse, PEER_ADDRESS_HEADER, selfUrl, stampPeerAddress } from "../../scripts/peer-address.mjs";

describe("stampPeerAddress", () => {
  it("uses the same header name as the console's clientAddress()", () => {
    expect(PEER_ADDRESS_HEADER).toBe(SERVER_HEADER);
  });

  it("replaces every client-sent copy, in headers and rawHeaders, with the socket's address, and drops forwarded headers from a client no proxy list names", () => {
    const request = {
      headers: { host: "console", "x-skill-console-peer": "203.0.113.9, 198.51.100.1", "x-forwarded-for": "203.0.113.9" },
      rawHeaders: ["Host", "console", "X-Skill-Console-Peer", "203.0.113.9", "x-skill-console-PEER", "198.51.100.1", "X-Forwarded-For", "203.0.113.9"],
      socket: { remoteAddress: "192.0.2.7" },
    };
    stampPeerAddress(request);
    expect(request.headers).toEqual({ host: "console", "x-skill-console-peer": "192.0.2.7" });
    expect(request.rawHeaders).toEqual(["Host", "console", "x-skill-console-peer", "192.0.2.7"]);
  });

  it("only removes the header when the socket has no address (the console then sees \"unknown\")", () => {
    const request = { headers: { "x-skill-console-peer": "203.0.113.9" }, rawHeaders: ["x-skill-console-peer", "203.0.113.9"], socket: {} };
    stampPeerAddress(request);
    expect(request.headers).toEqual({});
    expect(request.rawHeaders).toEqual([]);
  });

  it("writes an IPv4 client of a dual-stack socket as plain IPv4", () => {
    expect(normalisePeerAddress("::ffff:127.0.0.1")).toBe("127.0.0.1");
    expect(normalisePeerAddress("::1")).toBe("::1");
    expect(normalisePeerAddress(undefined)).toBeNull();
  });
});

describe("a node:http server that stamps requests", () => {
  let server: http.Server;
  let url: string;

  beforeAll(async () => {
    // What console-server.mjs does before handing a request to Next.js; the handler echoes what it got.
    server = http.createServer((request, response) => {
      stampPeerAddress(request);
      response.setHeader("content-type", "application/json");
      response.end(JSON.stringify({ header: request.headers[SERVER_HEADER], raw: request.rawHeaders }));
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  });

  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it("cannot be told another address by a client", async () => {
    const response = await fetch(url, { headers: { "X-Skill-Console-Peer": "203.0.113.9", "X-Forwarded-For": "203.0.113.9" } });
    const seen = (await response.json()) as { header: string; raw: string[] };
    expect(seen.header).toBe("127.0.0.1");
    const peerValues = seen.raw.filter((_value, index) => index % 2 === 1 && seen.raw[index - 1]!.toLowerCase() === SERVER_HEADER);
    expect(peerValues).toEqual(["127.0.0.1"]);
  });
});

describe("selfUrl (the start-up request)", () => {
  it("asks the loopback address when the server listens on a wildcard", () => {
    expect(selfUrl({ address: "0.0.0.0", family: "IPv4", port: 3000 }, "/api/v1/auth/session")).toBe("http://127.0.0.1:3000/api/v1/auth/session");
    expect(selfUrl({ address: "::", family: "IPv6", port: 3000 }, "/x")).toBe("http://[::1]:3000/x");
    expect(selfUrl({ address: "10.0.0.5", family: "IPv4", port: 8080 }, "/x")).toBe("http://10.0.0.5:8080/x");
  });
});

describe("limitConnections", () => {
  it("closes a client address's connections past its cap at once, counts none of a trusted proxy's, and frees a slot when one closes", async () => {
    const net = await import("node:net");
    for (const [trusted, expectClosed] of [[null, true], [parse("127.0.0.1"), false]] as const) {
      const server = http.createServer(() => undefined);
      const openOf = limitConnections(server, trusted, { perAddress: 3, total: 100 });
      await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
      const port = (server.address() as AddressInfo).port;
      const connect = () =>
        new Promise<import("node:net").Socket>((resolve) => {
          const socket = net.connect(port, "127.0.0.1", () => resolve(socket));
        });
      const closed = (socket: import("node:net").Socket) => new Promise<boolean>((resolve) => { socket.once("close", () => resolve(true)); setTimeout(() => resolve(false), 500); });
      const sockets = [await connect(), await connect(), await connect()];
      const fourth = await connect();
      // Past the cap (3), the console closes the fourth at once: 16,384 slow sign-ins from six addresses held the event loop for seconds.
      expect(await closed(fourth)).toBe(expectClosed);
      expect(openOf("127.0.0.1")).toBe(expectClosed ? 3 : 0);
      if (expectClosed) {
        sockets[0]!.destroy();
        await expect.poll(() => openOf("127.0.0.1")).toBe(2);
        const again = await connect();
        expect(await closed(again)).toBe(false);
        again.destroy();
      }
      for (const socket of [...sockets, fourth]) socket.destroy();
      await new Promise((resolve) => server.close(resolve));
    }
  });
});

describe("keepConnectionsAlive", () => {
  it("keeps an idle keep-alive connection open past node's 5 s, so a client reusing it after 5 s is not reset", async () => {
    const server = http.createServer((_request, response) => response.end("ok"));
    keepConnectionsAlive(server);
    expect({ keepAlive: server.keepAliveTimeout, headers: server.headersTimeout }).toEqual({ keepAlive: KEEP_ALIVE_MS, headers: KEEP_ALIVE_MS + 1000 });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const port = (server.address() as AddressInfo).port;
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    const get = () =>
      new Promise<{ reused: boolean; body: string }>((resolve, reject) => {
        const request = http.get({ host: "127.0.0.1", port, path: "/", agent }, (response) => {
          let body = "";
          response.on("data", (chunk: Buffer) => (body += chunk.toString()));
          response.on("end", () => resolve({ reused: request.reusedSocket, body }));
        });
        request.on("error", reject);
      });
    try {
      expect(await get()).toEqual({ reused: false, body: "ok" });
      // Past node's default keepAliveTimeout (5 s): the server would have closed the connection.
      await new Promise((resolve) => setTimeout(resolve, 5600));
      expect(await get()).toEqual({ reused: true, body: "ok" });
    } finally {
      agent.destroy();
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  }, 15_000);
});
