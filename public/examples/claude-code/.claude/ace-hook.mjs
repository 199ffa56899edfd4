#!/usr/bin/env node
// Claude Code hooks for ACE Studio (Node 18+, standard library only). They call ACE Studio's MCP
// tools over HTTP (POST /api/mcp, JSON-RPC), so the playbook works even when Claude forgets to:
//
//   node ace-hook.mjs prompt   UserPromptSubmit: search_bullets with the prompt; what it prints is
//                              added to Claude's context (the playbook's bullets for this task).
//   node ace-hook.mjs stop     Stop: record_outcome for the turn (task = the prompt, summary = Claude's
//                              last answer, whose [id] citations ACE Studio reads), unless Claude
//                              already called record_outcome itself in this turn. The outcome is
//                              "unknown": a hook cannot tell whether the task succeeded; Claude's own
//                              record_outcome call (the after_task prompt) says so.
//
// Settings (environment): ACE_STUDIO_URL (default http://localhost:3000), ACE_PLAYBOOK (the
// playbook's name; required), ACE_API_KEY (an API key with the mcp scope, where the studio
// requires keys), ACE_HOOK_K (bullets per prompt, default 8).
// A hook never blocks Claude: any failure is one line on stderr and exit code 0.
import { readFile } from "node:fs/promises";

const URL_BASE = (process.env.ACE_STUDIO_URL || "http://localhost:3000").replace(/\/+$/, "");
const PLAYBOOK = process.env.ACE_PLAYBOOK || "";
const K = Math.min(50, Math.max(1, Number.parseInt(process.env.ACE_HOOK_K || "8", 10) || 8));
const TIMEOUT_MS = 10_000;

async function readStdin() {
  const chunks = [];
  for await (const chunk of process.stdin) chunks.push(chunk);
  const text = Buffer.concat(chunks).toString("utf8").trim();
  return text ? JSON.parse(text) : {};
}

let requestId = 0;

/** One MCP tools/call over Streamable HTTP (ACE Studio's endpoint is stateless: no session to open). */
async function callTool(name, args) {
  const response = await fetch(`${URL_BASE}/api/mcp`, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      "mcp-protocol-version": "2025-06-18",
      ...(process.env.ACE_API_KEY ? { authorization: `Bearer ${process.env.ACE_API_KEY}` } : {}),
    },
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: ++requestId,
      method: "tools/call",
      params: { name, arguments: { playbook: PLAYBOOK, ...args } },
    }),
    signal: AbortSignal.timeout(TIMEOUT_MS),
  });
  const body = await response.text();
  if (!response.ok) throw new Error(`ACE Studio answered ${response.status}: ${body.slice(0, 300)}`);
  const message = JSON.parse(body);
  if (message.error) throw new Error(message.error.message);
  const text = (message.result.content || []).map((part) => part.text || "").join("\n");
  if (message.result.isError) throw new Error(text);
  return { text, structured: message.result.structuredContent };
}

/** The transcript's entries (JSON lines), oldest first; unreadable lines are skipped. */
async function readTranscript(path) {
  if (!path) return [];
  const text = await readFile(path, "utf8").catch(() => "");
  return text.split("\n").flatMap((line) => {
    try {
      return line.trim() ? [JSON.parse(line)] : [];
    } catch {
      return [];
    }
  });
}

function contentParts(entry) {
  const content = entry?.message?.content;
  if (typeof content === "string") return [{ type: "text", text: content }];
  return Array.isArray(content) ? content : [];
}

/** The last turn: the user's prompt (not a tool result) and everything the assistant did after it. */
function lastTurn(entries) {
  let start = -1;
  for (let index = entries.length - 1; index >= 0; index -= 1) {
    const entry = entries[index];
    if (entry.type === "user" && contentParts(entry).some((part) => part.type === "text")) {
      start = index;
      break;
    }
  }
  if (start < 0) return null;
  const prompt = contentParts(entries[start])
    .filter((part) => part.type === "text")
    .map((part) => part.text)
    .join("\n");
  const after = entries.slice(start + 1).filter((entry) => entry.type === "assistant");
  const texts = after.flatMap((entry) =>
    contentParts(entry)
      .filter((part) => part.type === "text")
      .map((part) => part.text),
  );
  const tools = after.flatMap((entry) =>
    contentParts(entry)
      .filter((part) => part.type === "tool_use")
      .map((part) => part.name),
  );
  return { prompt, answer: texts.join("\n\n"), tools, index: start };
}

async function onPrompt(input) {
  const prompt = String(input.prompt || "").trim();
  if (!prompt) return;
  const { structured } = await callTool("search_bullets", { query: prompt.slice(0, 2000), k: K });
  const bullets = structured?.bullets || [];
  if (bullets.length === 0) return;
  const lines = bullets.map((bullet) => `[${bullet.id}] helpful=${bullet.helpful} harmful=${bullet.harmful} :: ${bullet.content}`);
  process.stdout.write(
    `Lessons from the ACE Studio playbook "${structured.playbook}" that may apply (follow the ones that fit, and cite the ids you use as [id]):\n${lines.join("\n")}\n`,
  );
}

async function onStop(input) {
  if (input.stop_hook_active) return;
  const turn = lastTurn(await readTranscript(input.transcript_path));
  if (!turn || !turn.prompt.trim()) return;
  if (turn.tools.some((name) => /record_outcome$/.test(name))) return;
  await callTool("record_outcome", {
    task: turn.prompt.slice(0, 100_000),
    outcome: "unknown",
    summary: turn.answer.slice(0, 100_000) || undefined,
    externalId: `claude-code:${input.session_id || "session"}:${turn.index}`,
  });
}

const mode = process.argv[2];
try {
  if (!PLAYBOOK) throw new Error("set ACE_PLAYBOOK to the playbook's name");
  const input = await readStdin();
  if (mode === "prompt") await onPrompt(input);
  else if (mode === "stop") await onStop(input);
  else throw new Error(`unknown mode "${mode}": use prompt or stop`);
} catch (error) {
  process.stderr.write(`ace-hook (${mode}): ${error instanceof Error ? error.message : String(error)}\n`);
}
process.exit(0);
