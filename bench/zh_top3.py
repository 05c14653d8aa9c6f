"""Chinese first-person memories asked about in other words: is the source in the top 3, and
is the version valid at the time asked about first?

24 short Chinese episodes of one user over two years (a job, a home, a drink, a pet, a
teacher, a phone... some changed once, with the date of each telling), sent through
GraphQL, and 16 Chinese questions that say it differently: about now, about last year
("去年"), about before a change ("以前"). Written for this bench, apart from the
single-user corpus; no recall knob was chosen on it.

Reported per embedder: **top 3** (a source message of the answer among the first three
items' sources) and, for the questions about a fact that changed, **valid first** (the
version valid at the asked time ranks above the other version among the results).

    python bench/zh_top3.py                       # the default embedder (MiniLM)
    python bench/zh_top3.py --embedder e5         # multilingual-e5-small (graphmem[e5])
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from _common import RESULTS, header, log, table, write_json  # noqa: E402
from _retrieval import refs_of  # noqa: E402
from single_user import ADD, RECALL, GraphQL  # noqa: E402

USER = "zh-top3"
REFERENCE = "2026-06-01T09:00:00Z"
# (id, date, text)
EPISODES = [
    ("e01", "2024-09-02", "我在一家叫云帆科技的公司做前端开发。"),
    ("e02", "2024-10-12", "我家楼下新开了一家面包店，周末常去买可颂。"),
    ("e03", "2024-11-20", "最近每天早上都要来一杯美式咖啡才能清醒。"),
    ("e04", "2025-01-08", "我们养了一只橘猫，名字叫年糕。"),
    ("e05", "2025-02-14", "我的钢琴老师姓周，每周六上午上课。"),
    ("e06", "2025-03-03", "我住在杭州西湖区，离公司骑车十分钟。"),
    ("e07", "2025-04-18", "我用的手机是一部旧的 iPhone 11。"),
    ("e08", "2025-05-09", "我对花生过敏，吃一点就起疹子。"),
    ("e09", "2025-06-21", "周末帮我看看这个正则表达式为什么匹配不上。"),
    ("e10", "2025-07-15", "我开始学日语了，目标是明年考N2。"),
    ("e11", "2025-08-30", "我妹妹下个月要结婚，我得准备伴娘的裙子。"),
    ("e12", "2025-09-10", "今年夏天我最爱喝冰镇酸梅汤。"),
    ("e13", "2025-10-05", "我每个月房租是四千二。"),
    ("e14", "2025-11-11", "帮我写一段给客户的道歉邮件。"),
    ("e15", "2025-12-20", "我从云帆科技离职了，下周一去星河数据报到。"),
    ("e16", "2026-01-06", "新年开始我改喝绿茶了，咖啡基本戒了。"),
    ("e17", "2026-01-25", "我们搬家了，现在住在杭州滨江区。"),
    ("e18", "2026-02-10", "周老师出国了，现在教我钢琴的是一位姓林的老师。"),
    ("e19", "2026-02-28", "我换了新手机，是华为的Mate 60。"),
    ("e20", "2026-03-15", "房东把房租涨到了四千六。"),
    ("e21", "2026-04-02", "给我推荐几部适合周末看的纪录片。"),
    ("e22", "2026-04-20", "年糕最近胖了，兽医说要控制饭量。"),
    ("e23", "2026-05-06", "日语课改到每周三晚上了。"),
    ("e24", "2026-05-20", "我最近在读《三体》，第二部快读完了。"),
]
# (question, evidence ids, the version valid at the asked time, the other version)
QUESTIONS: list[tuple[str, list[str], str | None, str | None]] = [
    ("我现在在哪家公司上班？", ["e15"], "e15", "e01"),
    ("我换工作之前在哪个公司？", ["e01", "e15"], "e01", "e15"),
    ("我现在早上一般喝什么？", ["e16"], "e16", "e03"),
    ("去年我每天早上喝什么？", ["e03"], "e03", "e16"),
    ("我家的猫叫什么名字？", ["e04", "e22"], None, None),
    ("现在谁在教我弹钢琴？", ["e18"], "e18", "e05"),
    ("我以前的钢琴老师姓什么？", ["e05"], "e05", "e18"),
    ("我目前住在杭州哪个区？", ["e17"], "e17", "e06"),
    ("我现在用的是什么手机？", ["e19"], "e19", "e07"),
    ("我有什么食物过敏吗？", ["e08"], None, None),
    ("我在学哪门外语？", ["e10", "e23"], None, None),
    ("我妹妹什么时候结婚？", ["e11"], None, None),
    ("我现在每月房租多少钱？", ["e20"], "e20", "e13"),
    ("去年夏天我喜欢喝什么饮料？", ["e12"], None, None),
    ("我最近在看什么书？", ["e24"], None, None),
    ("日语课现在是哪天上？", ["e23"], None, None),
]


def run(embedder: str) -> dict[str, Any]:
    from graphmem.bootstrap import build_service
    from graphmem.settings import Settings

    with tempfile.TemporaryDirectory() as tmp:
        service = build_service(Settings(data_dir=Path(tmp), embedder=embedder))
        service.open()
        gql = GraphQL(service)
        try:
            gql(ADD, {"inputs": [{"userId": USER, "content": text, "role": "user",
                                  "occurredAt": f"{day}T09:00:00Z", "sourceRef": eid,
                                  "source": "chat", "kind": "message"}
                                 for eid, day, text in EPISODES]})
            rows = []
            for question, evidence, valid, other in QUESTIONS:
                items = gql(RECALL, {"input": {"userId": USER, "query": question, "limit": 20,
                                               "referenceTime": REFERENCE}})["recall"]["items"]
                ranked = refs_of(items)
                top3 = 1.0 if set(ranked[:3]) & set(evidence) else 0.0
                first = None
                if valid is not None and other is not None:
                    first = 1.0 if valid in ranked and (other not in ranked or ranked.index(
                        valid) < ranked.index(other)) else 0.0
                rows.append({"question": question, "ranked": ranked[:5], "top3": top3,
                             "valid_first": first})
        finally:
            gql.close()
            service.close()
    firsts = [r["valid_first"] for r in rows if r["valid_first"] is not None]
    return {"top3": round(statistics.fmean(r["top3"] for r in rows), 3),
            "valid_first": round(statistics.fmean(firsts), 3), "n": len(rows),
            "n_versioned": len(firsts), "rows": rows}


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--embedder", action="append", choices=("minilm", "use", "e5", "minilm+use"),
                   help="repeatable (default: minilm)")
    p.add_argument("--json", type=Path, default=RESULTS / "zh_top3.json")
    args = p.parse_args(argv)
    report = header("zh-top3")
    report["results"] = {}
    for name in args.embedder or ["minilm"]:
        log(f"{name} ...")
        report["results"][name] = run(name)
    print(table(["embedder", "questions", "source in top 3", "versioned", "valid first"],
                [[n, r["n"], r["top3"], r["n_versioned"], r["valid_first"]]
                 for n, r in report["results"].items()]))
    write_json(args.json, report)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
