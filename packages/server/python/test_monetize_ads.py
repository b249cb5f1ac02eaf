"""The Python client against a local stand-in for the service (http.server on a loopback port).

`python3 -m unittest` in this folder; `npm test` runs it (packages/server/test/python.test.ts).
"""

import base64
import json
import threading
import time
import unittest
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from monetize_ads import AD_DATA_PREFIX, ServerClient, ad_markdown, latest_messages

AD = {
    "decision_id": "01937a3c-0000-7000-8000-000000000001",
    "placement_id": "5f0c1b9e-8d7a-4c3b-9e21-0a6d5c4b3a29",
    "format": "inline_text",
    "ad": {
        "id": "c1",
        "advertiser": "Lumen Notes",
        "headline": "Notes that *write* [themselves]",
        "body": "Capture this idea in one click.",
        "cta": "Try free",
        "image_url": None,
        "video_url": None,
        "label": "Sponsored",
    },
    "click_url": "https://monetize.example/functions/v1/click?token=t.1",
    "token": "t.1",
    "expires_at": "2026-12-06T23:00:00.000Z",
    "viewability": {"min_visible_share": 0.5, "min_seconds": 1},
}
KEY = "sk_live_" + "A" * 32


class StandIn(BaseHTTPRequestHandler):
    behaviour = None
    received: list = []

    def do_POST(self):  # noqa: N802 (the stdlib's name)
        length = int(self.headers.get("Content-Length", "0"))
        StandIn.received.append({"headers": dict(self.headers), "body": self.rfile.read(length).decode("utf-8")})
        StandIn.behaviour(self)

    def log_message(self, *args):  # quiet
        pass


def answer(status, body=None, headers=None):
    def respond(handler):
        payload = b"" if body is None else (body if isinstance(body, bytes) else json.dumps(body).encode("utf-8"))
        handler.send_response(status)
        for name, value in (headers or {}).items():
            handler.send_header(name, value)
        handler.send_header("Content-Type", "application/json")
        handler.send_header("Content-Length", str(len(payload)))
        handler.end_headers()
        handler.wfile.write(payload)

    return respond


class GetAd(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.server = ThreadingHTTPServer(("127.0.0.1", 0), StandIn)
        cls.server.daemon_threads = True
        cls.thread = threading.Thread(target=cls.server.serve_forever, daemon=True)
        cls.thread.start()
        cls.base = f"http://127.0.0.1:{cls.server.server_address[1]}"

    @classmethod
    def tearDownClass(cls):
        cls.server.shutdown()
        cls.server.server_close()

    def setUp(self):
        StandIn.received = []
        self.why = []
        self.client = ServerClient(KEY, self.base + "/", on_no_ad=self.why.append)

    def ask(self, **kw):
        return self.client.get_ad("p1", [{"role": "user", "content": "Which notes app works offline?"}], "203.0.113.7", "Mozilla/5.0", **kw)

    def test_sends_the_key_as_a_bearer_the_messages_and_the_client_and_answers_the_ad(self):
        StandIn.behaviour = answer(200, AD)
        self.assertEqual(self.ask(), AD)
        sent = StandIn.received[0]
        self.assertEqual(sent["headers"]["Authorization"], f"Bearer {KEY}")
        self.assertNotIn("Origin", sent["headers"])
        self.assertEqual(
            json.loads(sent["body"]),
            {
                "placement_id": "p1",
                "client": {"ip": "203.0.113.7", "user_agent": "Mozilla/5.0"},
                "context": {"messages": [{"role": "user", "content": "Which notes app works offline?"}]},
            },
        )

    def test_none_when_nothing_fills(self):
        StandIn.behaviour = answer(204, headers={"No-Fill-Reason": "sensitive"})
        self.assertIsNone(self.ask())
        self.assertEqual(self.why, [{"reason": "no_fill", "no_fill_reason": "sensitive"}])

    def test_none_when_refused(self):
        for status, code in ((401, "invalid_token"), (403, "forbidden"), (429, "rate_limited"), (500, "internal_error")):
            self.why.clear()
            StandIn.behaviour = answer(status, {"error": {"status": status, "code": code, "message": "no"}})
            self.assertIsNone(self.ask())
            self.assertEqual(self.why, [{"reason": "refused", "status": status, "code": code}])

    def test_none_when_the_answer_is_not_an_ad(self):
        for body in (b"{not json", {"decision_id": "x"}, []):
            self.why.clear()
            StandIn.behaviour = answer(200, body)
            self.assertIsNone(self.ask())
            self.assertEqual(self.why, [{"reason": "invalid_answer"}])

    def test_none_at_the_timeout_when_the_service_is_slow(self):
        def slow(handler):
            time.sleep(1.0)
            answer(200, AD)(handler)

        StandIn.behaviour = slow
        self.assertIsNone(self.ask(timeout=0.05))
        self.assertEqual(self.why, [{"reason": "timeout"}])

    def test_none_when_the_service_is_down(self):
        probe = ThreadingHTTPServer(("127.0.0.1", 0), StandIn)
        port = probe.server_address[1]
        probe.server_close()
        client = ServerClient(KEY, f"http://127.0.0.1:{port}", on_no_ad=self.why.append)
        self.assertIsNone(client.get_ad("p1", [], "203.0.113.7", "Mozilla/5.0"))
        self.assertEqual(self.why, [{"reason": "unreachable"}])

    def test_a_logger_that_raises_changes_nothing(self):
        def boom(_):
            raise RuntimeError("logger down")

        StandIn.behaviour = answer(204)
        self.assertIsNone(ServerClient(KEY, self.base, on_no_ad=boom).get_ad("p1", [], "203.0.113.7", "Mozilla/5.0"))


class Helpers(unittest.TestCase):
    def test_latest_messages_keeps_six_and_4000_characters(self):
        many = [{"role": "user" if i % 2 == 0 else "assistant", "content": f"message {i}"} for i in range(9)]
        self.assertEqual([m["content"] for m in latest_messages(many)], [f"message {i}" for i in range(3, 9)])
        long = [{"role": "user", "content": "a" * 3000}, {"role": "assistant", "content": "b" * 3000}, {"role": "user", "content": "c" * 500 + "end"}]
        kept = latest_messages(long)
        self.assertEqual(sum(len(m["content"]) for m in kept), 4000)
        self.assertEqual(kept[0]["content"], "a" * 497)

    def test_ad_markdown_matches_the_typescript_package(self):
        md = ad_markdown(AD)
        self.assertIn("**Sponsored** · Lumen Notes: [Notes that \\*write\\* \\[themselves\\]](https://monetize.example/functions/v1/click?token=t.1)", md)
        data = md[md.index(AD_DATA_PREFIX) + len(AD_DATA_PREFIX) : md.rindex(" -->")]
        self.assertEqual(json.loads(base64.urlsafe_b64decode(data + "=" * (-len(data) % 4)).decode("utf-8")), AD)


if __name__ == "__main__":
    unittest.main()
