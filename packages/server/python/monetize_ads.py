"""Monetize for an app's server, in Python, with the standard library only.

    from monetize_ads import ServerClient

    monetize = ServerClient(key=os.environ["MONETIZE_SERVER_KEY"], base_url="https://monetize.example")
    ad = monetize.get_ad(placement_id, messages, client_ip, user_agent)

`get_ad` never raises and never waits past its timeout (0.3 s by default): it returns the ad (a
dict, as `POST /functions/v1/ads` answers it) or None when nothing fills, the service refuses,
cannot be reached, or is slow. Run it in a thread beside your model call. `ad_markdown(ad)` is the
ad as the last chunk of an answer in markdown, as the TypeScript package writes it. The
conversation goes to the ad request and nowhere else.
"""

from __future__ import annotations

import base64
import json
import re
import socket
import threading
import urllib.error
import urllib.request
from typing import Any, Callable, Optional, Sequence

DEFAULT_TIMEOUT_S = 0.3
MAX_MESSAGES = 6
MAX_CHARACTERS = 4000
AD_DATA_PREFIX = "<!-- monetize-ad "


def latest_messages(messages: Sequence[dict]) -> list[dict]:
    """The last 6 messages that fit in 4,000 characters, newest first to fit; a long one keeps its end."""
    out: list[dict] = []
    room = MAX_CHARACTERS
    for m in reversed(list(messages or [])):
        if len(out) >= MAX_MESSAGES or room <= 0:
            break
        if not isinstance(m, dict) or m.get("role") not in ("user", "assistant") or not isinstance(m.get("content"), str):
            continue
        content = m["content"] if len(m["content"]) <= room else m["content"][len(m["content"]) - room :]
        if not content:
            continue
        out.insert(0, {"role": m["role"], "content": content})
        room -= len(content)
    return out


class ServerClient:
    """Asks for ads with an app's secret server key (`sk_live_...`): keep it in your server's environment."""

    def __init__(
        self,
        key: str,
        base_url: str,
        timeout: float = DEFAULT_TIMEOUT_S,
        on_no_ad: Optional[Callable[[dict], None]] = None,
    ) -> None:
        self.key = key
        self.base_url = base_url.rstrip("/")
        self.timeout = timeout
        self.on_no_ad = on_no_ad

    def _none(self, why: dict) -> None:
        if self.on_no_ad is not None:
            try:
                self.on_no_ad(why)
            except Exception:  # a logger that fails must not fail the answer
                pass
        return None

    def get_ad(
        self,
        placement_id: str,
        messages: Sequence[dict],
        client_ip: str,
        user_agent: str,
        timeout: Optional[float] = None,
    ) -> Optional[dict[str, Any]]:
        """The ad for this placement and conversation, bound to the end user's client, or None, within `timeout` seconds."""
        limit = timeout if timeout is not None else self.timeout
        # urllib's timeout bounds each blocking step (connecting, sending, each read), not the
        # whole: the request runs in a thread of its own, and the answer is given up at `limit`.
        answered: dict[str, Any] = {}
        worker = threading.Thread(target=lambda: answered.update(result=self._ask(placement_id, messages, client_ip, user_agent, limit)), daemon=True)
        worker.start()
        worker.join(limit)
        if worker.is_alive() or "result" not in answered:
            return self._none({"reason": "timeout"})
        ad, why = answered["result"]
        return ad if why is None else self._none(why)

    def _ask(self, placement_id: str, messages: Sequence[dict], client_ip: str, user_agent: str, limit: float) -> tuple[Optional[dict[str, Any]], Optional[dict]]:
        """The ad and None, or None and why not; tells no one (the caller does, once)."""
        try:
            context = latest_messages(messages)
            body: dict[str, Any] = {"placement_id": placement_id, "client": {"ip": client_ip, "user_agent": user_agent}}
            if context:
                body["context"] = {"messages": context}
            request = urllib.request.Request(
                f"{self.base_url}/functions/v1/ads",
                data=json.dumps(body).encode("utf-8"),
                method="POST",
                headers={"Authorization": f"Bearer {self.key}", "Content-Type": "application/json", "User-Agent": "monetize-ads-python/1.0"},
            )
            with urllib.request.urlopen(request, timeout=limit) as res:
                if res.status == 204:
                    return None, {"reason": "no_fill", "no_fill_reason": res.headers.get("No-Fill-Reason")}
                ad = json.loads(res.read().decode("utf-8"))
                if not _is_ad(ad):
                    return None, {"reason": "invalid_answer"}
                return ad, None
        except urllib.error.HTTPError as err:
            code = None
            try:
                code = json.loads(err.read().decode("utf-8")).get("error", {}).get("code")
            except Exception:
                pass
            return None, {"reason": "refused", "status": err.code, "code": code}
        except (socket.timeout, TimeoutError):
            return None, {"reason": "timeout"}
        except urllib.error.URLError as err:
            if isinstance(err.reason, (socket.timeout, TimeoutError)):
                return None, {"reason": "timeout"}
            return None, {"reason": "unreachable"}
        except ValueError:
            return None, {"reason": "invalid_answer"}
        except Exception:
            return None, {"reason": "unreachable"}


def _is_ad(body: Any) -> bool:
    return (
        isinstance(body, dict)
        and isinstance(body.get("decision_id"), str)
        and isinstance(body.get("token"), str)
        and isinstance(body.get("click_url"), str)
        and isinstance(body.get("ad"), dict)
        and isinstance(body["ad"].get("headline"), str)
        and isinstance(body["ad"].get("advertiser"), str)
    )


def _literal(text: str) -> str:
    return re.sub(r"\s+", " ", re.sub(r"([\\`*_\[\]()<>#!|~])", r"\\\1", text))


def ad_markdown(ad: dict) -> str:
    """The ad as the last chunk of an answer: labelled Sponsored, its headline linked to its click URL, its data for the browser SDK."""
    data = base64.urlsafe_b64encode(json.dumps(ad, separators=(",", ":"), ensure_ascii=False).encode("utf-8")).decode("ascii").rstrip("=")
    body = f" {_literal(ad['ad']['body'])}" if ad["ad"].get("body") else ""
    return (
        f"\n\n---\n\n**Sponsored** · {_literal(ad['ad']['advertiser'])}: [{_literal(ad['ad']['headline'])}]({ad['click_url']}){body}"
        f"\n\n{AD_DATA_PREFIX}{data} -->\n"
    )
