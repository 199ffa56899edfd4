#!/usr/bin/env python3
"""A minimal ACE agent loop against ACE Studio, with the Python standard library only.

The generator's side of ACE: fetch the compiled playbook (cached with its ETag), put it in the
prompt, answer, cite the bullets used, and post the execution trace back. ACE Studio's reflector
tags the cited bullets and its curator proposes new ones for a person to approve.

This script stands in for a real agent (LangGraph, LangChain, your own): it "answers" by picking
bullets from the playbook, so it runs without any model. Replace `solve()` with your agent.

    python3 ace_agent.py --base-url http://localhost:3000 --playbook "Customer service (demo)" --traces 100

Where the studio requires sign-in, the agent sends an API key with the context:read and
traces:write scopes (Settings → API keys): put it in ACE_API_KEY, or pass --api-key.

Each trace says when the task ran (`timestamp`, ISO 8601 with its zone offset), which model ran it and
what it cost (`model`, `usage`), so the playbook's Evolution charts and
GET /api/v1/playbooks/{name}/metrics show outcomes and the agent's cost over time. `--backfill-days 14`
spreads the runs over the past 14 days instead, as an agent reporting past runs would.
"""
from __future__ import annotations

import argparse
import datetime
import json
import os
import random
import re
import sys
import time
import urllib.error
import urllib.parse
import urllib.request

BULLET_LINE = re.compile(r"^\[([A-Za-z0-9_][\w-]*-\d{5,})\]")


class StudioError(Exception):
    pass


class AceStudio:
    """The two endpoints an agent needs; see /api/v1/openapi.json for the full contract."""

    def __init__(self, base_url: str, playbook: str, timeout: float = 30.0, api_key: str | None = None) -> None:
        self.base_url = base_url.rstrip("/")
        self.playbook = playbook
        self.api_key = api_key
        self.timeout = timeout
        self._etag: str | None = None
        self._context: dict | None = None

    def _request(self, method: str, path: str, body: object | None = None, headers: dict | None = None):
        data = None if body is None else json.dumps(body).encode("utf-8")
        request = urllib.request.Request(self.base_url + path, data=data, method=method)
        request.add_header("accept", "application/json")
        if self.api_key:
            request.add_header("authorization", f"Bearer {self.api_key}")
        if data is not None:
            request.add_header("content-type", "application/json")
        for key, value in (headers or {}).items():
            request.add_header(key, value)
        try:
            with urllib.request.urlopen(request, timeout=self.timeout) as response:
                payload = response.read()
                return response.status, dict(response.headers), json.loads(payload) if payload else None
        except urllib.error.HTTPError as error:
            if error.code == 304:
                return 304, dict(error.headers), None
            detail = error.read().decode("utf-8", "replace")
            try:
                detail = json.loads(detail)["error"]["message"]
            except (ValueError, KeyError, TypeError):
                pass
            raise StudioError(f"{method} {path} answered {error.code}: {detail}") from None
        except urllib.error.URLError as error:
            raise StudioError(f"Could not reach ACE Studio at {self.base_url}: {error.reason}") from None

    def context(self, budget: int | None = None) -> dict:
        """The playbook as prompt text; asks with If-None-Match so an unchanged playbook costs nothing."""
        query = {"budget": budget} if budget else {}
        path = f"/api/v1/playbooks/{urllib.parse.quote(self.playbook, safe='')}/context"
        if query:
            path += "?" + urllib.parse.urlencode(query)
        headers = {"if-none-match": self._etag} if self._etag and self._context else {}
        status, response_headers, body = self._request("GET", path, headers=headers)
        if status != 304:
            self._context = body
            self._etag = response_headers.get("ETag") or response_headers.get("etag")
        return self._context or {}

    def post_traces(self, traces: list[dict]) -> dict:
        _, _, body = self._request("POST", "/api/v1/traces", {"traces": traces})
        return body


def run_times(count: int, backfill_days: float, now: datetime.datetime) -> list[datetime.datetime | None]:
    """When each task "ran": None (now, as it happens) or, to back-fill, evenly over the past days."""
    if backfill_days <= 0:
        return [None] * count
    span = datetime.timedelta(days=backfill_days)
    return [now - span + span * (index + 0.5) / count for index in range(count)]


def solve(task: str, context_text: str, rng: random.Random) -> tuple[str, str, list[str], str, dict]:
    """Stands in for the agent: cites two bullets, succeeds most of the time, reports tool errors when not."""
    ids = [match.group(1) for line in context_text.splitlines() if (match := BULLET_LINE.match(line.strip()))]
    cited = rng.sample(ids, k=min(2, len(ids)))
    succeeded = rng.random() < 0.7
    reasoning = f"Following {' and '.join(f'[{bullet_id}]' for bullet_id in cited)} for: {task}"
    if succeeded:
        return reasoning, "Done.", cited, "success", {}
    error = rng.choice(
        [
            "HTTP 429 Too Many Requests from the orders API",
            "KeyError: 'customer_id' in the refund tool response",
            "Timeout after 30 s waiting for the payments service",
        ]
    )
    return reasoning, "I could not finish the task.", cited, "failure", {"errors": [error]}


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--base-url", default="http://localhost:3000")
    parser.add_argument("--api-key", default=os.environ.get("ACE_API_KEY"), help="an API key (default: $ACE_API_KEY)")
    parser.add_argument("--playbook", required=True, help="the playbook's name in ACE Studio")
    parser.add_argument("--traces", type=int, default=100, help="how many tasks to run")
    parser.add_argument("--batch", type=int, default=25, help="traces per POST (at most 1,000)")
    parser.add_argument("--seed", type=int, default=7, help="the same seed gives the same traces")
    parser.add_argument("--run-id", default=None, help="prefix of the traces' externalId (idempotent re-posts)")
    parser.add_argument("--model", default=None, help="the model your agent runs, reported with each trace")
    parser.add_argument("--experiment", default=None, help="experiment key, reported with the variant")
    parser.add_argument("--variant", default=None, help="the variant this agent runs, e.g. A")
    parser.add_argument(
        "--backfill-days", type=float, default=0, help="report the runs as spread over the past N days (back-fill)"
    )
    args = parser.parse_args(argv)

    studio = AceStudio(args.base_url, args.playbook, api_key=args.api_key)
    rng = random.Random(args.seed)
    run_id = args.run_id or f"run-{int(time.time())}"
    created = duplicates = 0
    pending: list[dict] = []
    times = run_times(args.traces, args.backfill_days, datetime.datetime.now(datetime.timezone.utc))
    try:
        for index in range(args.traces):
            context = studio.context()
            task = f"Customer request #{index + 1}"
            ran_at = times[index] or datetime.datetime.now(datetime.timezone.utc)
            started = time.perf_counter()
            reasoning, output, cited, outcome, feedback = solve(task, context.get("context", ""), rng)
            trace = {
                "playbook": args.playbook,
                "externalId": f"{run_id}-{index + 1}",
                "task": task,
                "reasoning": reasoning,
                "output": output,
                "citedBulletIds": cited,
                "outcome": outcome,
                "feedback": feedback,
                "durationMs": round((time.perf_counter() - started) * 1000),
                # ISO 8601 with the zone offset (+00:00): a time without one is refused.
                "timestamp": ran_at.isoformat(),
                "playbookVersion": context.get("version"),
                "metadata": {"agent": "ace_agent.py"},
            }
            # A real agent reports its model and what the call cost, e.g.
            # "usage": {"inputTokens": 1500, "outputTokens": 300, "costUsd": 0.0011}.
            # This stand-in calls no model, so it reports none.
            if args.model:
                trace["model"] = args.model
            if args.variant:
                trace["variant"] = args.variant
            if args.experiment:
                trace["experiment"] = args.experiment
            pending.append(trace)
            if len(pending) >= args.batch or index == args.traces - 1:
                result = studio.post_traces(pending)
                created += result["created"]
                duplicates += result["duplicates"]
                pending = []
    except StudioError as error:
        print(f"error: {error}", file=sys.stderr)
        return 1
    print(f"Posted {args.traces} traces to {args.playbook!r}: {created} stored, {duplicates} already there.")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
