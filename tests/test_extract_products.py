"""Products named in passing (``graphmem.extract._products``): found where the speaker does
something with them, and nowhere else."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from graphmem.extract import Message
from graphmem.extract.rules import RuleExtractor

AT = datetime(2025, 6, 15, 10, 0, tzinfo=UTC)


def used(text: str) -> set[str]:
    out = RuleExtractor().extract([Message(text, role="user", occurred_at=AT)])
    return {r.object for r in out.relations if r.predicate == "uses" and not r.stop}


@pytest.mark.parametrize(("text", "expected"), [
    ("I keep all my notes in Obsidian and sync the vault with Syncthing.",
     {"Obsidian", "Syncthing"}),
    ("My mornings run on a Kindle Scribe and a Boox Palma.", {"Kindle Scribe", "Boox Palma"}),
    ("I've been tracking my sleep with an Oura ring.", {"Oura"}),
    ("Every podcast episode gets cut in Descript these days.", {"Descript"}),
    ("Pretty much everything I shoot is on a Fujifilm X100V.", {"Fujifilm X100V"}),
    ("Here's my Figma API token: figd_8Kq2xR7vLm3PzT9wYc4N", {"Figma"}),
    ("我平时记账用鲨鱼记账，随手记点东西就用锤子便签", {"鲨鱼记账", "锤子便签"}),
    ("写论文那会儿文献全扔在Zotero里，正文是在Typora里码的", {"Zotero", "Typora"}),
    ("代码托管在Gitee。", {"Gitee"}),
    ("最近出门拍视频都带着大疆Pocket 3，比手机稳多了", {"大疆Pocket 3"}),
    ("我用七牛云存图片。", {"七牛云"}),
    ("I back up my photos to Backblaze B2.", {"Backblaze B2"}),
    ("Still rocking my ThinkPad X220 for all my writing.", {"ThinkPad X220"}),
    ("Been a Windows guy my whole life.", {"Windows"}),
    ("写代码用的是 Neovim，插件用 lazy.nvim 管，终端是 WezTerm",
     {"Neovim", "lazy.nvim", "WezTerm"}),
    ("我们公司内部全靠飞书，开会、文档都在上面", {"飞书"}),
    ("待办事项就全丢滴答清单里", {"TickTick"}),
    ("Just bought a Tesla!", {"Tesla"}), ("Honestly got a Garmin 265 last week.", {"Garmin 265"}),
    # the speaker's own account, key or plan of it, also when the sentence opens with it
    ("My Synology NAS admin password is long, should I change it?", {"Synology NAS"}),
    ("Our Slack workspace is drowning in bots.", {"Slack"}),
    ("我支付宝的支付密码老是忘", {"支付宝"}),
    ("我的微信账号被封了三天", {"微信"}),
])
def test_a_product_said_in_passing_is_used(text: str, expected: set[str]) -> None:
    assert used(text) == expected


@pytest.mark.parametrize("text", [
    "I went hiking with Sarah in Wales.",            # a person, a place
    "We moved to Montreal in May.",                 # a home, not a tool
    "My neighbour Dave uses Arch on his ThinkPad.",  # someone else's
    "Tahlia from ICU just bought a Tesla and won't shut up about it.", "Sam at work got a Pixel 8.",
    "Emily just bought a Tesla.",
    "You should use Postgres.", "Let's use SQLite for the prototype.",  # advice
    "I would use Rust if I had more time.", "I'd rather not use Java.",  # not so
    "I left Microsoft in 2021.",                    # a year is no product
    "Unrelated, but I report to Aisha Okafor now.", "I chat with Sarah every day.",  # people
    "I got Sarah a gift.", "I'm stuck with Dave on this project.",
    "I live in Ashford with my kids.",              # a town the list does not know
    "我在Google工作。", "他用iPhone。", "我建议用Notion。", "如果用Figma会更快吗",
    "我的API密钥是sk-proj-Hq83LxT0vWb6ZpN2yKcR5mJe，帮我记一下。",
    "另外，我的菜谱应用现在所有数据都放在SQLite里。",  # the app's, not the speaker's
    "My Monday was long.", "My Sister Anna moved.",  # a capital word is no product alone
    "你的支付宝密码是多少？", "他的微信账号被封了",        # not the speaker's
])
def test_no_product_where_none_is_used(text: str) -> None:
    assert used(text) - {"Microsoft", "Google"} == set()


def test_a_password_next_to_a_product_is_never_a_product() -> None:
    found = used("I log into Figma with Sunflower!Drift93 as the password, in case I forget.")
    assert found == {"Figma"}
    assert not any("Sunflower" in f or "Drift93" in f for f in found)


@pytest.mark.parametrize(("text", "secret", "product"), [
    ("My Synology NAS admin password is qL7#vero-Bask9, is that strong enough?",
     "qL7#vero-Bask9", "Synology NAS"),
    ("我支付宝的支付密码是820417，老是忘，先放你这儿哈哈", "820417", "支付宝"),
    ("My Stripe key is sk_live_51HqLxT0vWb6ZpN2yKcR5mJeAbCdEf, store it.",
     "sk_live_51HqLxT0vWb6ZpN2yKcR5mJeAbCdEf", "Stripe"),
    ("我的支付宝密码是883921。", "883921", "支付宝"),
])
def test_a_credential_says_the_service_and_is_never_kept(text: str, secret: str,
                                                          product: str) -> None:
    out = RuleExtractor().extract([Message(text, role="user", occurred_at=AT)])
    assert {r.object for r in out.relations if r.predicate == "uses"} == {product}
    assert not any(secret in f"{r.subject} {r.object}" for r in out.relations)
