// What the server does about accounts when it starts (server/startup.ts calls these): check the
// settings, stamp requests with their peer, find out whether the network reaches us (and refuse
// ACE_AUTH=off if it does), print the setup token while no account exists, and keep the tables tidy.
import net from "node:net";
import { networkInterfaces } from "node:os";
import { dropOldAuditIps } from "@/server/audit/service";
import type { Db } from "@/server/db/client";
import { usersExist } from "./authenticate";
import { getAuthSettings, type AuthSettings } from "./config";
import { installPeerStamp } from "./peer";
import { deleteStaleCounters } from "./rate-limit";
import * as repo from "./repository";
import { addSetupToken } from "./service";
import { newToken } from "./tokens";

export type Exposure = "loopback" | "network";

function log(message: string) {
  console.log(`[ace-studio] ${message}`);
}

/** Addresses of this machine other than loopback (and IPv6 link-local, which needs a zone to reach). */
export function externalAddresses(): string[] {
  return Object.values(networkInterfaces())
    .flatMap((infos) => infos ?? [])
    .filter((info) => !info.internal)
    .filter((info) => info.family === "IPv4" || !info.address.toLowerCase().startsWith("fe80:"))
    .map((info) => info.address);
}

function reachable(host: string, port: number, timeoutMs: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ host, port });
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(timeoutMs, () => done(false));
    socket.once("connect", () => done(true));
    socket.once("error", () => done(false));
  });
}

/**
 * Whether this server can be reached other than through loopback: it tries its own port on each of
 * the machine's other addresses. (Requests carry the listening address too; this is for start-up.)
 */
export async function probeExposure(port: number): Promise<Exposure> {
  const results = await Promise.all(externalAddresses().map((address) => reachable(address, port, 500)));
  return results.some(Boolean) ? "network" : "loopback";
}

/** Before the database opens. Exits the process when ACE_AUTH=off meets a server the network can reach. */
export async function prepareAuth(port: number): Promise<{ settings: AuthSettings; exposure: Exposure }> {
  const settings = getAuthSettings(); // a bad setting throws here, naming the variable
  installPeerStamp();
  const exposure = await probeExposure(port);
  if (settings.mode === "off" && exposure === "network") {
    console.error(
      `[ace-studio] ACE_AUTH=off turns sign-in off, which is only allowed on a server that listens on loopback alone, ` +
        `but port ${port} answers on ${externalAddresses().join(", ")}. Start it with HOST=127.0.0.1 (npm start does so by default), ` +
        `or unset ACE_AUTH to require sign-in. Stopping.`,
    );
    process.exit(1);
  }
  return { settings, exposure };
}

const DAY_MS = 24 * 60 * 60_000;

async function tidy(db: Db, settings: AuthSettings): Promise<void> {
  const now = new Date();
  await repo.deleteExpiredSessions(db, now);
  await deleteStaleCounters(db, now);
  await dropOldAuditIps(db, settings.auditIpDays, now);
}

/** Once the database is open: says how sign-in works, prints a setup token while no account exists. */
export async function announceAuth(
  db: Db,
  origin: string,
  { settings, exposure }: { settings: AuthSettings; exposure: Exposure },
): Promise<void> {
  const exist = await usersExist(db);
  if (settings.mode === "off") {
    log("ACE_AUTH=off: no sign-in; every request acts as the local admin (this server listens on loopback only).");
  } else if (!exist) {
    const token = settings.setupToken ?? newToken();
    await addSetupToken(db, token);
    if (settings.mode === "auto" && exposure === "loopback") {
      log(
        `No accounts yet and only this computer can reach the studio: no sign-in needed. Create an admin at ${origin}/setup to require it.`,
      );
    } else {
      log(
        `Sign-in is required (${settings.mode === "on" ? "ACE_AUTH=on" : "the server is reachable from the network"}) and no account exists yet.`,
      );
    }
    log(
      `To create the first admin elsewhere, open ${origin}/setup with this one-time setup token${settings.setupToken ? " (ACE_SETUP_TOKEN)" : ""}:`,
    );
    if (!settings.setupToken) log(`  ${token}`);
    log("  or run: npm run ace -- user create --admin --email <you@example.com> --setup-token <token>");
  } else {
    log(`Sign-in required${exposure === "network" ? " (reachable from the network)" : ""}; API routes need keys.`);
  }
  await tidy(db, settings).catch((error: unknown) => console.error("[ace-studio] tidying sessions and limits failed:", error));
  const timer = setInterval(() => void tidy(db, settings).catch(() => undefined), DAY_MS);
  timer.unref();
}
