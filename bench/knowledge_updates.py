"""Knowledge updates on hand-written facts: does a question about now get the new version
of a changed fact above the old one?

The single-user corpus (``corpus.py``) plants eight kinds of fact, and recall's facets
(``graphmem._facets``) cover those eight among others, so its update figure says little
about facts it was not shaped on. This set was written separately: 24 English and 12
Chinese changes of everyday facts (a 5K time, a dog's name, a gym, a phone, a landlord...,
some inside recall's facet vocabulary, some outside it), each said once, then said again
with a new value weeks later, inside assistant requests about something else, among filler
requests. Six changes per user, 40 messages over 120 days, sent through GraphQL
(``addEpisodes``, ``role`` user, no ``speaker``); each question about now goes to
``recall`` with ``referenceTime`` a day after the last message.

Reported per language and recall variant: **update** (the new version in the top 10 and
above the old one), **new@1** (the new version first) and **both in 10**; BM25 over the
same messages beside them, and each recall's median time through GraphQL (the default runs
first, so it pays for embedding what later variants find cached). Variants change one
stage of the default recall
(``RecallTuning``): ``-facet lift``, ``-newer versions``, ``-facet order``, ``-facet words``,
``-now band``, ``-now standouts``, ``-newer kin``, ``-successors``, ``-requests``, all nine
off, and the default again.

    python bench/knowledge_updates.py                 # test: the facts reported
    python bench/knowledge_updates.py --split dev -v  # dev: other facts, for choosing knobs
    python bench/knowledge_updates.py --split dev2 -v # a second dev set, other shapes
    python bench/knowledge_updates.py --split dev3 -v # a third: changes said in passing
    python bench/knowledge_updates.py --split dev4 -v # a fourth, by someone who had not read
                                                      # the engine
    python bench/knowledge_updates.py --split held    # a fifth, written the same way after
                                                      # the last knob was chosen: reported
    python bench/knowledge_updates.py --split dev5 -v # a sixth, written the same way after
                                                      # the held one was reported: for
                                                      # knobs chosen since
    python bench/knowledge_updates.py --split dev6 -v # a seventh, mostly changes said by
                                                      # their sense alone
    python bench/knowledge_updates.py --split held2   # an eighth, written apart from dev6
                                                      # at the same time: reported only
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import tempfile
import time
from dataclasses import dataclass, replace
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from _common import RESULTS, header, log, table, write_json  # noqa: E402
from _retrieval import Baselines, multilingual_tokens, refs_of  # noqa: E402
from single_user import ADD, RECALL, GraphQL  # noqa: E402

# (old statement, new statement, question about now)
EN: list[tuple[str, str, str]] = [
    ("My 5K personal best is 27:40, set at the spring fun run.",
     "I ran the harbour 5K on Saturday and my new personal best is 25:55.",
     "What is my current 5K personal best?"),
    ("Our dog is called Biscuit, he's a very lazy beagle.",
     "We renamed the rescue dog Pepper because he never answered to Biscuit.",
     "What is my dog's name these days?"),
    ("I train at Ironworks Gym near the station.",
     "I cancelled Ironworks and signed up at Peak Fitness, it's closer to home.",
     "Which gym do I go to now?"),
    ("I'm on a Pixel 6 and the battery barely lasts a day.",
     "I finally replaced my phone, it's an iPhone 15 now.",
     "What phone do I have at the moment?"),
    ("My Instagram account for the bakery has about 1,200 followers.",
     "The bakery's Instagram just passed 3,400 followers after the reel went viral.",
     "How many followers does my bakery's Instagram have now?"),
    ("I drive a 2012 Honda Civic to work.",
     "I sold the Civic and now I drive a used Toyota Prius.",
     "What car do I drive currently?"),
    ("My Spanish class meets on Tuesday evenings at the community centre.",
     "The Spanish class moved to Thursday evenings this term.",
     "When does my Spanish class meet now?"),
    ("My landlord is Mr. Petrov, he's slow with repairs.",
     "The building was sold and our new landlord is a company called Harbor Homes.",
     "Who is my landlord now?"),
    ("I'm reading Middlemarch, about halfway through.",
     "I finished Middlemarch and started The Remains of the Day.",
     "What book am I reading right now?"),
    ("I volunteer at the Eastside food bank on Saturdays.",
     "I stopped going to the food bank and now volunteer at the animal shelter on Sundays.",
     "Where do I volunteer these days?"),
    ("My daughter Mia is in second grade at Lincoln Elementary.",
     "Mia switched schools and now goes to Oakridge Academy.",
     "Which school does Mia attend now?"),
    ("My blood pressure medication is lisinopril, 10 mg.",
     "The doctor switched me from lisinopril to amlodipine 5 mg.",
     "What blood pressure medication am I on now?"),
    ("I pay 45 dollars a month for my phone plan with Verizon.",
     "I moved my phone plan to Mint Mobile, 15 dollars a month.",
     "How much do I pay for my phone plan now?"),
    ("I play five-a-side football on Wednesdays with people from work.",
     "I quit football after the knee injury and took up swimming on Wednesdays.",
     "What sport do I do on Wednesdays now?"),
    ("My team uses Jira for tickets.",
     "We migrated all our tickets from Jira to Linear last sprint.",
     "Which ticket tracker does my team use now?"),
    ("My bike commute is 8 km each way.",
     "Since the move my bike commute is 14 km each way.",
     "How long is my bike commute now?"),
    ("My therapist is Dr. Alvarez, I see her every other week.",
     "Dr. Alvarez retired, so I now see Dr. Chen every other week.",
     "Who is my therapist now?"),
    ("I weigh about 92 kg right now.",
     "After the summer of cycling I'm down to 84 kg.",
     "How much do I weigh now?"),
    ("My favourite band at the moment is Fleet Foxes.",
     "Honestly these days my favourite band is Big Thief, I can't stop playing them.",
     "What is my favourite band currently?"),
    ("Our wedding date is set for June 14.",
     "We pushed the wedding to September 20 because the venue flooded.",
     "When is my wedding now?"),
    ("My kid's bedtime is 8 pm.",
     "We moved the kids' bedtime to 8:30 pm now that the days are longer.",
     "What time is my kid's bedtime now?"),
    ("I host my website on a DigitalOcean droplet.",
     "I moved the website off DigitalOcean onto Netlify.",
     "Where is my website hosted now?"),
    ("I'm learning the cello with a teacher named Ruth.",
     "Ruth moved away, my new cello teacher is Daniel.",
     "Who teaches me cello now?"),
    ("My monthly grocery budget is 400 dollars.",
     "We raised the grocery budget to 520 dollars a month with prices going up.",
     "What is my monthly grocery budget now?"),
]

ZH: list[tuple[str, str, str]] = [
    ("我的5公里最好成绩是28分10秒。", "上周六比赛我把5公里最好成绩刷新到了26分05秒。",
     "我现在5公里的最好成绩是多少？"),
    ("我家的狗叫旺财，是一只柯基。", "我们给狗改名叫豆包了，旺财这个名字它一直不认。",
     "我家的狗现在叫什么？"),
    ("我在家附近的力美健身房锻炼。", "我退了力美的卡，现在去公司楼下的乐刻健身。",
     "我现在去哪家健身房？"),
    ("我用的手机是小米12，电池不太行。", "我终于换手机了，现在用的是华为Mate 60。",
     "我现在用什么手机？"),
    ("我每天开车上班，开的是一辆旧的大众朗逸。", "朗逸卖掉了，我现在开一辆比亚迪海豚。",
     "我现在开什么车？"),
    ("我的西班牙语课每周二晚上上。", "这学期西班牙语课改到每周四晚上了。",
     "我的西班牙语课现在什么时候上？"),
    ("我正在读《百年孤独》，读到一半。", "《百年孤独》读完了，现在在读《活着》。",
     "我现在在读什么书？"),
    ("我女儿在实验小学读二年级。", "女儿转学了，现在在育才小学上学。",
     "我女儿现在在哪个学校？"),
    ("我的手机套餐每月88元。", "我把手机套餐换成了每月39元的。",
     "我现在手机套餐每月多少钱？"),
    ("我们团队用禅道管理需求。", "上个迭代我们把需求从禅道迁到了飞书项目。",
     "我们团队现在用什么管理需求？"),
    ("我的体重大概92公斤。", "夏天骑了几个月车，现在降到84公斤了。",
     "我现在体重多少？"),
    ("我们的婚礼定在6月14日。", "场地被淹了，婚礼推迟到9月20日。",
     "我的婚礼现在定在哪天？"),
]

# A dev split written after the test lists above (and after reading their results), for
# choosing knobs: other facts, the same shapes. The test lists are only reported.
EN_DEV: list[tuple[str, str, str]] = [
    ("My yoga class is on Monday mornings at the studio on Elm Street.",
     "The studio moved my yoga class to Friday mornings.", "When is my yoga class now?"),
    ("I'm saving up for a trip to Portugal next spring.",
     "We changed plans, the savings are going toward a trip to Japan instead.",
     "What trip am I saving for now?"),
    ("My go-to coffee order is a flat white.",
     "I've switched my usual order to an oat cortado.",
     "What is my usual coffee order these days?"),
    ("I'm using a Dell XPS 13 for work.",
     "Work gave me a new laptop, a ThinkPad X1 Carbon.",
     "What laptop do I use for work now?"),
    ("My sister Anna lives in Denver.",
     "Anna just moved from Denver to Seattle for her new job.",
     "Where does my sister Anna live now?"),
    ("Our book club meets at Laura's place every month.",
     "The book club now meets at the library cafe instead of Laura's.",
     "Where does my book club meet now?"),
    ("My internet provider is Comcast, 60 dollars a month.",
     "I switched internet to a local fiber company, Sonic, 50 dollars a month.",
     "Who is my internet provider now?"),
    ("I've got 3 houseplants on the windowsill.",
     "The plant collection has grown, I'm up to 11 houseplants.",
     "How many houseplants do I have now?"),
    ("My dentist is Dr. Okafor on Main Street.",
     "I changed dentists, I go to Dr. Lindqvist now.", "Who is my dentist now?"),
    ("My running shoes are Nike Pegasus.",
     "I replaced the Pegasus with a pair of Hoka Cliftons.",
     "Which running shoes do I use now?"),
    ("My son's piano lessons are 30 minutes long.",
     "His teacher extended the piano lessons to 45 minutes.",
     "How long are my son's piano lessons now?"),
    ("I commute by bus, the 42 line.",
     "I've started cycling to work instead of taking the 42 bus.",
     "How do I get to work now?"),
    ("My savings account pays 1.5 percent interest.",
     "The bank raised my savings rate to 3.2 percent.",
     "What interest rate does my savings account pay now?"),
    ("Our team standup is at 9:30.",
     "Standup got moved to 10:15 because of the new hires in another time zone.",
     "What time is my team's standup now?"),
    ("I'm on the night shift at the hospital.",
     "I finally got moved to day shifts at the hospital.", "Which shift do I work now?"),
    ("My password manager is LastPass.",
     "After the breach I moved everything from LastPass to Bitwarden.",
     "Which password manager do I use now?"),
    ("My cat Luna eats a dry food called Purina One.",
     "The vet put Luna on a prescription food, Royal Canin Renal.",
     "What food does my cat Luna eat now?"),
    ("I have 12 days of vacation left this year.",
     "After the Lisbon trip I'm down to 4 vacation days.",
     "How many vacation days do I have left now?"),
    ("I'm captain of the office quiz team.",
     "I handed the quiz team captaincy over to Priya.",
     "Who captains my office quiz team now?"),
    ("My favourite restaurant is Luigi's on 5th.",
     "Since it opened, my favourite restaurant is the Thai place, Baan Suan.",
     "What is my favourite restaurant now?"),
    ("The kids' swimming lessons are at the YMCA.",
     "We moved the kids' swimming lessons to the Aquatic Centre.",
     "Where are the kids' swimming lessons now?"),
    ("My rent is due on the 1st of the month.",
     "The new lease moved my rent due date to the 15th.", "When is my rent due now?"),
    ("My marathon goal is to finish under 4 hours.",
     "After the injury my marathon goal is just to finish under 4:30.",
     "What is my marathon goal now?"),
    ("I back up my photos to Google Photos.",
     "I stopped using Google Photos and back everything up to iCloud.",
     "Where do I back up my photos now?"),
]
ZH_DEV: list[tuple[str, str, str]] = [
    ("我的瑜伽课在每周一早上。", "瑜伽馆把我的课调到每周五早上了。", "我的瑜伽课现在是什么时候？"),
    ("我平时喝拿铁。", "我现在改喝美式了，拿铁太腻。", "我现在平时喝什么咖啡？"),
    ("我工作用的电脑是戴尔XPS。", "公司给我换了一台ThinkPad X1。", "我现在工作用什么电脑？"),
    ("我姐姐住在成都。", "姐姐换了工作，从成都搬到了深圳。", "我姐姐现在住在哪里？"),
    ("我家宽带是电信的，每月100元。", "宽带换成了移动的，每月只要60元。",
     "我家宽带现在每月多少钱？"),
    ("我阳台上养了3盆花。", "阳台上的花越来越多，现在有11盆了。", "我现在养了几盆花？"),
    ("我每天坐地铁2号线上班。", "我现在改骑电动车上班了，不坐地铁了。", "我现在怎么上班？"),
    ("我们组的站会在早上9点半。", "站会改到10点15了，照顾新来的同事。", "我们组的站会现在几点？"),
    ("我用的密码管理器是LastPass。", "出了泄露的事以后我全部迁到了Bitwarden。",
     "我现在用什么密码管理器？"),
    ("我今年还剩12天年假。", "去了趟里斯本，现在年假只剩4天了。", "我现在还剩几天年假？"),
    ("孩子的游泳课在青少年宫上。", "孩子的游泳课换到体育中心上了。", "孩子现在在哪里上游泳课？"),
    ("我的照片都备份在百度网盘。", "我不用百度网盘了，照片都备份到iCloud。",
     "我的照片现在备份在哪里？"),
]
# A second dev set, written after dev had been tuned to 1.00 (English): other facts, other
# shapes (counts, schedules, plans, people around the user), for the next round of choices.
EN_DEV2: list[tuple[str, str, str]] = [
    ("I usually go to bed around 11:30.",
     "Since the baby arrived I'm in bed by 9:45 most nights.",
     "What time do I go to bed these days?"),
    ("I take the 7:40 train into the city every morning.",
     "I've started cycling to the office instead of taking the train.",
     "How do I get to work now?"),
    ("My usual coffee order is a flat white with oat milk.",
     "I switched my usual order to a cortado, flat whites are too milky for me.",
     "What's my usual coffee order?"),
    ("I weigh about 84 kilos at the moment.",
     "Down to 78 kg after three months of cutting sugar!",
     "How much do I weigh now?"),
    ("I manage a team of five engineers.",
     "After the reorg my team grew to nine people.",
     "How many people are on my team now?"),
    ("Maya goes to Oakwood Primary, it's a ten minute walk.",
     "We moved Maya to St Anne's this term because of the bullying.",
     "Which school does Maya go to now?"),
    ("We pay for the Netflix standard plan.",
     "We downgraded Netflix to the basic plan to save a bit of money.",
     "Which Netflix plan are we on?"),
    ("I'm putting away £300 a month for the house deposit.",
     "I bumped the deposit savings to £450 a month after my raise.",
     "How much am I saving each month for the deposit?"),
    ("My German is at A2 level.",
     "I passed the B1 German exam last week!",
     "What level is my German at now?"),
    ("My dentist is Dr. Patel on King Street.",
     "I changed dentists, I now see Dr. Morales near the office.",
     "Who is my dentist now?"),
    ("My car insurance is with Aviva, about £620 a year.",
     "Renewed the car insurance with Admiral instead, £540 for the year.",
     "Who is my car insurance with?"),
    ("I play a Yamaha acoustic guitar I got as a teenager.",
     "I sold the Yamaha and bought a Martin D-28.",
     "What guitar do I play now?"),
    ("I take cetirizine for my hay fever.",
     "The doctor moved me from cetirizine to fexofenadine.",
     "What do I take for hay fever now?"),
    ("Our book club meets on the first Tuesday of the month.",
     "Book club has moved to the last Thursday of the month.",
     "When does my book club meet now?"),
    ("I work 40 hours a week.",
     "I went part-time in the new year, so it's 24 hours a week.",
     "How many hours a week do I work now?"),
    ("Our broadband is Virgin Media at 200 Mbps.",
     "We switched the broadband to a BT fibre plan, 900 Mbps.",
     "Who is our broadband with now?"),
    ("I bank with Barclays.",
     "I moved my current account over to Monzo.",
     "Which bank is my current account with?"),
    ("My wife works as a pharmacist at Boots.",
     "My wife left Boots and she's a lecturer at the university now.",
     "What does my wife do for work now?"),
    ("I'm doing pottery classes on Wednesday evenings.",
     "I dropped pottery and joined a climbing club instead.",
     "Which class or club am I going to now?"),
    ("Our mortgage rate is fixed at 1.9% until March.",
     "The fix ended and we remortgaged at 4.6%.",
     "What is our mortgage rate now?"),
    ("We have two cats, Luna and Milo.",
     "We adopted a third cat last weekend, a tabby called Pip.",
     "How many cats do we have now?"),
    ("I work on a 24-inch Dell monitor.",
     "Upgraded my desk setup to an LG 34-inch ultrawide.",
     "What monitor do I use now?"),
    ("I'm doing 16:8 intermittent fasting.",
     "I stopped fasting, I just eat three regular meals now.",
     "What's my eating schedule now?"),
    ("My sister Leah lives in Glasgow.",
     "Leah moved to Dublin for her new job.",
     "Where does my sister live now?"),
]
ZH_DEV2: list[tuple[str, str, str]] = [
    ("我每天早上七点起床。", "最近改成六点起床了，早上去跑步。", "我现在几点起床？"),
    ("我的房租是每月三千五。", "房东涨租了，现在每月四千二。", "我现在房租多少？"),
    ("我在学日语，现在是N3水平。", "上个月我考过了N2。", "我的日语现在是什么水平？"),
    ("我开的是一辆大众朗逸。", "我把朗逸卖了，换了一辆比亚迪汉。", "我现在开什么车？"),
    ("我们团队有六个人。", "团队扩招了，现在有十一个人。", "我的团队现在有多少人？"),
    ("我女儿在阳光幼儿园上学。", "女儿这学期转到了实验幼儿园。", "我女儿现在在哪个幼儿园？"),
    ("我每周三晚上去游泳。", "游泳改到了周六上午。", "我现在什么时候去游泳？"),
    ("我的体重是七十五公斤。", "减肥三个月，现在六十八公斤了。", "我现在体重多少？"),
    ("我的手机号是联通的。", "我把号码携号转网到了移动。", "我的手机号现在是哪家运营商？"),
    ("我家宽带是一百兆的。", "宽带升级到了五百兆。", "我家现在宽带多快？"),
    ("我周末在一家咖啡店兼职。", "咖啡店的兼职辞了，现在周末在书店帮忙。", "我现在周末在哪兼职？"),
    ("我的牙医是王医生。", "我换了牙医，现在找李医生看。", "我现在的牙医是谁？"),
]

# A third dev set, written after dev2 had been tuned on: the new version said in passing,
# most often without a word of change ("just wrapped up my first week at Stripe"), the
# questions in other words than either version, for the next round of choices.
EN_DEV3: list[tuple[str, str, str]] = [
    ("I work as a backend developer at Shopify, mostly on the checkout team.",
     "Just wrapped up my first week at Stripe and the onboarding has been intense.",
     "Which company am I working for?"),
    ("My partner and I rent a one-bedroom flat in Leith.",
     "Now that we've bought our own place in Portobello, the commute is a bit longer.",
     "Where do we live?"),
    ("I've been using a Kindle Paperwhite for all my reading.",
     "My new Kobo Libra arrived and I love the page-turn buttons.",
     "What e-reader do I use?"),
    ("Lately I'm obsessed with sourdough baking on weekends.",
     "These days my weekends are all about woodworking, the sourdough starter died ages ago.",
     "What's my weekend hobby?"),
    ("Our son Theo is four and goes to the Little Acorns nursery.",
     "Theo turned five and started reception at Hillside Primary in September.",
     "Where does Theo go during the day?"),
    ("I'm paying 45 a month for my gym membership at PureGym.",
     "The gym membership went up to 52 a month, which is annoying.",
     "How much is my gym membership?"),
    ("My manager is Priya, she's great at shielding us from meetings.",
     "Daniel, who replaced Priya as my manager, wants weekly one-to-ones.",
     "Who is my manager?"),
    ("I commute about 25 minutes by bus.",
     "Working from home full time now, so no commute at all.",
     "How long is my commute?"),
    ("My running watch is a Garmin Forerunner 245.",
     "I've been testing the Coros Pace 3 I got for my birthday on all my runs.",
     "Which running watch do I use?"),
    ("We're planning the wedding for June next year in Cornwall.",
     "We pushed the wedding back to September because the venue double-booked.",
     "When is our wedding?"),
    ("I take my coffee black, no sugar.",
     "Ever since the dentist's lecture I've given up coffee and drink rooibos in the mornings.",
     "What do I drink in the mornings?"),
    ("I'm on the 12-week couch to 5K plan, in week 3.",
     "Signed up for my first half marathon in October, training four days a week.",
     "What am I training for?"),
    ("My laptop is a ThinkPad T480 from work.",
     "The company issued me a MacBook Pro M3 and took the ThinkPad back.",
     "What laptop do I use for work?"),
    ("I'm vegetarian, have been for about two years.",
     "I started eating fish again on the doctor's advice, so pescatarian now.",
     "What is my diet?"),
    ("We have one child, our daughter Ella.",
     "Baby Sam was born on the 3rd, so Ella is a big sister!",
     "How many children do we have?"),
    ("My rent is £1,150 a month for the flat.",
     "The landlord's letter came: from next month the flat costs £1,290.",
     "How much is my rent?"),
    ("I listen to music on Spotify Premium.",
     "Cancelled Spotify, I'm on Apple Music with the family plan.",
     "Which music streaming service do I use?"),
    ("My best friend Tom lives around the corner from me.",
     "Tom relocated to Singapore for work, we mostly video call now.",
     "Where does my friend Tom live?"),
    ("I cycle around town on a Trek hybrid.",
     "Someone stole the Trek, so I'm riding a Brompton folding bike now.",
     "What bike do I ride?"),
    ("Our team uses Jira for tickets.",
     "We migrated all our tickets to Linear last sprint, Jira is gone.",
     "What do we use to track tickets?"),
    ("My mum is in a care home in Leeds.",
     "We brought mum to live with us, her room is the old study.",
     "Where does my mum live?"),
    ("I do yoga twice a week at the studio.",
     "My physio has me doing Pilates three times a week instead.",
     "What exercise classes do I do each week?"),
    ("My phone plan is with EE, 30GB for £20.",
     "I'm on a Giffgaff SIM now, unlimited data for £25.",
     "Which mobile network am I on?"),
    ("My daily step goal is 8,000.",
     "I raised my step goal to 10,000 in the new year.",
     "What's my daily step goal?"),
]
ZH_DEV3: list[tuple[str, str, str]] = [
    ("我在腾讯做产品经理。", "这周刚入职字节跳动，新同事都挺好的。", "我现在在哪家公司上班？"),
    ("我用的是Kindle看电子书。", "新买的掌阅阅读器到了，翻页手感很好。",
     "我现在用什么电子阅读器？"),
    ("我每天坐地铁通勤，大概四十分钟。", "公司允许全职远程办公了，再也不用挤地铁。",
     "我现在怎么通勤？"),
    ("我们家有一个孩子，是女儿。", "二宝出生了，是个男孩，女儿当姐姐了。",
     "我们家现在有几个孩子？"),
    ("我的月薪是一万二。", "年中调薪后，月薪涨到一万五了。", "我现在月薪多少？"),
    ("我的领导是张经理。", "张经理调走了，新来的领导是刘总。", "我现在的领导是谁？"),
    ("我周末喜欢去钓鱼。", "最近周末都在学打羽毛球，鱼竿好久没碰了。", "我周末一般做什么？"),
    ("我们的婚礼定在明年五月。", "因为场地的问题，婚礼推到了十月。", "我们的婚礼在什么时候？"),
    ("我爸妈住在老家哈尔滨。", "我把爸妈接到上海来住了。", "我爸妈现在住在哪？"),
    ("我一直用华为手表记录跑步。", "生日收到一块佳明手表，现在跑步都戴它。",
     "我现在跑步用什么手表？"),
    ("我每天走八千步。", "今年开始我把目标提高到一万步。", "我每天的步数目标是多少？"),
    ("我吃素已经两年了。", "听医生的建议，我开始吃鱼了。", "我现在的饮食习惯是什么？"),
]

# dev4: written by someone who had not read the engine, changes said mostly in passing
EN_DEV4: list[tuple[str, str, str]] = [
    ("I'm a sous-chef at Lola's, the tapas bar in Bristol, so my evenings are mostly gone.",
     "Writing the whole autumn menu myself is terrifying; being head chef at Lola's means every "
     "complaint lands on me.",
     "What's my position in the kitchen these days?"),
    ("I teach maths at Riverside Academy, mostly Year 9 and 10 classes.",
     "Spent all Sunday marking mock papers for my new sixth-formers at Kingsmead College.",
     "Which school employs me now?"),
    ("We rent a terraced house in Sheffield, just off Ecclesall Road.",
     "Still unpacking boxes in the Cardiff flat, and the seagulls here wake us at 5am.",
     "Which city do I call home now?"),
    ("My commute is a 40-minute drive on the M60, longer if it rains.",
     "Caught the 8:10 ferry across the river to the office this morning, so much nicer than "
     "sitting in traffic.",
     "How do I travel to my job these days?"),
    ("I do all my sketching on an old iPad Air with the first-generation Pencil.",
     "Upgraded to a Galaxy Tab S9 for drawing, and the S Pen that came in the box is lovely.",
     "Which tablet do I use for my artwork now?"),
    ("I drive a silver 2015 Ford Fiesta, small but reliable.",
     "Charging the Kia EV6 overnight at home costs a fraction of what I used to spend on petrol.",
     "What vehicle do I own currently?"),
    ("All my notes live in Evernote, I've got hundreds of them.",
     "Spent last night building a daily journal template in Obsidian, with backlinks to my "
     "project pages.",
     "Which app do I jot things down in nowadays?"),
    ("I'm learning Italian on Duolingo and I'm on a 200-day streak.",
     "My italki tutor says my Korean pronunciation is getting much better, though my hangul "
     "handwriting is still messy.",
     "Which foreign language am I studying at the moment?"),
    ("I play squash every Thursday evening at the university courts.",
     "Padel on Thursday was chaos, we lost every game but I'm completely hooked.",
     "What racket sport do I play each week now?"),
    ("I knit most evenings, right now it's a jumper for my niece.",
     "Birding has taken over my free time; I spotted a kingfisher on the canal at dawn today.",
     "What's my main pastime these days?"),
    ("I get through about three cans of Diet Coke a day at my desk.",
     "I've swapped to sparkling water with a slice of lime at my desk, six weeks and counting.",
     "What do I sip on during the workday now?"),
    ("Breakfast for me is porridge with honey, every single morning.",
     "Two boiled eggs and a handful of spinach, that's how every day starts before the school run.",
     "What's my usual morning meal these days?"),
    ("We adopted a rescue rabbit last month, the shelter had named him Thumper.",
     "Clover the bunny chewed through my laptop charger again, he's a little menace.",
     "What name does our pet rabbit go by now?"),
    ("Our eldest, Hannah, has her heart set on Durham to study law next year.",
     "Drove Hannah down to Exeter for freshers' week, her halls room is tiny but she's thrilled.",
     "Which university is my daughter at now?"),
    ("I've been seeing a guy called Jake for a few months, he's a paramedic.",
     "Dinner with Ravi's parents went far better than I feared, his mum even sent me home with "
     "leftovers.",
     "Who is my boyfriend at the moment?"),
    ("I'm on 38,000 pounds a year as a junior analyst.",
     "With the promotion, my payslip now says 44,500 pounds before tax.",
     "What's my yearly pay currently?"),
    ("My 10K best is 52:30, from last year's Leeds race.",
     "Crossed the line at the Bath 10K in 48:12, a PB by miles!",
     "What's my fastest time over ten kilometres now?"),
    ("I've got about 6,000 pounds in my emergency fund.",
     "The rainy-day pot finally hit 10,000 pounds on payday, felt amazing.",
     "How much do I have set aside for emergencies now?"),
    ("My dissertation has to be submitted by 30 April.",
     "My supervisor signed off the extension, so the final deadline is 15 June.",
     "By what date must I hand in my final write-up now?"),
    ("My GP is Dr. Hughes at Parkside Surgery.",
     "My new GP, Dr. Osei, was really thorough going through my blood test results.",
     "Which doctor do I see at my local practice now?"),
    ("We get a HelloFresh box delivered every Monday.",
     "This week's Gousto box had a chicken katsu that the kids actually finished.",
     "Which meal kit company do we order from now?"),
    ("My comfort show is The Office, I've rewatched it maybe six times.",
     "Whenever I'm wiped out I just put Parks and Recreation on, Leslie Knope fixes everything.",
     "Which sitcom do I put on to unwind these days?"),
    ("Our company chat runs on Slack.",
     "Since the merger we've moved over to Microsoft Teams and the notifications are driving me "
     "mad.",
     "What messaging platform does my employer use now?"),
    ("Gemma at Cutting Edge has done my hair for years.",
     "I've started going to Lucas at the barber's on Mill Lane, fifteen quid for a skin fade.",
     "Who styles my hair nowadays?"),
]
ZH_DEV4: list[tuple[str, str, str]] = [
    ("我在公司做前端开发，每天主要写Vue页面。",
     "当上组长以后，一半时间都在开会、排期和写周报，代码反而写得少了。",
     "我现在在团队里担任什么职务？"),
    ("我住在武汉，在光谷那边租了个一居室。",
     "来厦门一个月了，下班骑车十分钟就能到海边吹风。",
     "我目前定居在哪座城市？"),
    ("我一直用随手记记账，已经记了三年。",
     "我改用鲨鱼记账了，月报一看，这个月外卖花了八百多。",
     "我现在用哪个软件管理日常开销？"),
    ("我每周二、周四晚上去打乒乓球。",
     "周四晚上的飞盘局又玩到天黑，胳膊晒得跟炭一样。",
     "我现在每周固定参加什么运动？"),
    ("我每天下午都要点一杯奶茶，不喝没精神。",
     "这阵子下午都泡一壶菊花枸杞茶，喝着比以前舒服多了。",
     "我现在午后一般喝点什么？"),
    ("家里只养了一缸金鱼，猫狗都没养过。",
     "周末从救助站接回来一只橘猫，取名叫馒头，整天黏着我。",
     "我家新添的那只毛孩子叫什么？"),
    ("儿子每周六上午在少年宫学画画。",
     "儿子的围棋老师说他算得快，下个月就带他去考段。",
     "我儿子目前在学什么特长？"),
    ("我的半马最好成绩是2小时05分。",
     "无锡马拉松的半程跑了1小时52分，终于破PB了！",
     "我现在跑21公里最快用时多少？"),
    ("我的驾照科目二约在3月8号考。",
     "驾校通知科目二改到4月12号了，正好能多练几次倒车入库。",
     "我的场地驾驶考试现在定在哪一天？"),
    ("我们房东是位退休的陈阿姨，人特别好说话。",
     "热水器又坏了，给周先生发了微信，他说明天就找师傅上门。",
     "我现在租的房子，业主是谁？"),
    ("我开的是爱奇艺的年卡会员，主要看综艺。",
     "这个月起换成了腾讯视频的会员，主要为了追《庆余年》第二季。",
     "我现在在哪个平台付费追剧？"),
    ("我在自学法语，每天背二十个单词。",
     "德语的名词阴阳中性快把我逼疯了，der、die、das老是分不清。",
     "我目前在学哪门外语？"),
]
# A fifth set, written (like dev4) by someone who had not read the engine, after the stage
# that compares candidates' answers in meaning was chosen; scored once, for reporting
EN_HELD: list[tuple[str, str, str]] = [
    ('I work as a barista at a small café near the station.',
     'My first week of night shifts as a ward nurse nearly broke me, but honestly I love it.',
     'What do I do for a living now?'),
    ('I live in Denver, in a tiny apartment off Colfax.',
     'We moved to Portland last month, and the rain here is no joke.',
     'Which city am I living in these days?'),
    ('My pet right now is a goldfish named Bubbles.',
     'Pepper, our beagle, chewed through another charging cable this morning.',
     'What kind of pet do I have now?'),
    ("I'm dating a guy named Tom, we met at a climbing gym.",
     'Marco and I just celebrated six months together, he made the most amazing risotto.',
     'Who am I dating now?'),
    ('My phone is a Google Pixel 6.',
     "I finally switched to an iPhone 15 and I'm still getting used to the keyboard.",
     'Which phone am I using these days?'),
    ('I track my runs with Strava.',
     'Garmin Connect keeps nagging me about recovery time after every jog.',
     'What app do I use to log my runs now?'),
    ('My main hobby is knitting, I do it every evening.',
     "Most nights lately I'm at the wheel in the pottery studio, covered in clay up to my "
     'elbows.',
     "What's my main pastime at the moment?"),
    ('I play basketball every Thursday with some coworkers.',
     'I dropped basketball and joined a volleyball league instead, same night of the week.',
     'Which sport do I play on Thursdays now?'),
    ("I'm vegetarian, but I still eat eggs and cheese.",
     "Went fully vegan in March, so it's oat milk and tofu scramble from now on.",
     'What diet am I following currently?'),
    ('I drink two cups of black coffee every morning.',
     'Matcha latte in hand, ready to face the inbox.',
     "What's my go-to drink when I start the day nowadays?"),
    ("I'm taking an evening course in accounting at the community college.",
     "Swapped the accounting class for a web design course, it's way more fun.",
     'Which evening course am I enrolled in now?'),
    ('My dentist is Dr. Patel on Elm Street.',
     'The new dentist, Dr. Kim, actually explained everything she was doing. So refreshing.',
     'Who looks after my teeth now?'),
    ('I pay for Spotify Premium every month.',
     'Canceled that subscription since Apple Music came bundled with my new plan anyway.',
     'Which music streaming service am I using these days?'),
    ('My salary is about $52,000 a year.',
     "The raise finally went through, so I'm at $61,000 now.",
     'How much do I earn per year currently?'),
    ('I weigh 84 kilos right now and want to lose some.',
     'Scale said 77.5 this morning and I did a little dance in the bathroom.',
     "What's my body weight these days?"),
    ('My rent is $1,400 a month.',
     'Landlord bumped it up again, $1,650 starting this month, ugh.',
     'How much am I paying for my apartment monthly now?'),
    ('I wake up at 7:30 on weekdays.',
     "Since the early shift started I've been setting my alarm for 5:45.",
     'What time do I get up on workdays now?'),
    ('I have two houseplants, a pothos and a snake plant.',
     'Counted them last night: eleven now, my windowsill is basically a jungle.',
     'How many houseplants do I own at this point?'),
    ('My thesis is due on May 15.',
     'Good news, my advisor gave me an extension until June 30.',
     'When is my thesis deadline now?'),
    ("I'm on the marketing team at work.",
     'First sprint planning with the product folks today, lots of new faces and way too many '
     'sticky notes.',
     'Which department am I part of at my job now?'),
    ('I drive a 2012 Honda Civic.',
     'Sold the Civic, and the Toyota RAV4 has so much more room for the dogs.',
     'What car am I driving these days?'),
    ("I take the bus to work, it's about 40 minutes.",
     'Biking in along the river has become the best part of my mornings.',
     'How do I get to the office nowadays?'),
    ('I go to the Planet Fitness near my house.',
     "I switched gyms, I'm training at Iron Works CrossFit downtown now.",
     'Where do I work out currently?'),
    ("I'm learning Spanish on Duolingo.",
     'My Japanese tutor says my pronunciation is finally improving.',
     'Which language am I studying these days?'),
]
ZH_HELD: list[tuple[str, str, str]] = [
    ('我在一家银行做柜员。',
     '今天第一次给客户讲保险方案，当保险顾问比想象中累多了。',
     '我现在是做什么工作的？'),
    ('我住在成都高新区，离公司挺近的。',
     '搬到杭州快一个月了，西湖边跑步真舒服。',
     '我目前住在哪个城市？'),
    ('我养了一只橘猫，叫大橘。',
     '家里那只柯基今天又把拖鞋叼走了，气死我了。',
     '我现在养的是什么宠物？'),
    ('我每天下午都要喝一杯奶茶。',
     '戒了奶茶，现在下午只喝无糖气泡水。',
     '我最近下午一般喝什么？'),
    ('我每周去游泳三次。',
     '最近迷上了攀岩，周末都泡在岩馆里，手上全是茧。',
     '我现在主要做什么运动？'),
    ('我房租每个月3500。',
     '新合同签了，每月涨到4200，心好痛。',
     '我现在每个月住房要花多少钱？'),
    ('我用的是小米手机。',
     '换了华为Mate 60，拍照确实好很多。',
     '我目前用的是什么手机？'),
    ('我记账用的是随手记。',
     '这个月的开销用鲨鱼记账一看，外卖居然花了一千多。',
     '我现在用哪个软件管理花销？'),
    ('我在报班学吉他。',
     '吉他班不上了，改学钢琴了，老师人超好。',
     '我现在在学什么乐器？'),
    ('我的驾照科目三考试定在10月12号。',
     '科目三改约到11月3号了，还能多练几次。',
     '我科目三现在是哪天考？'),
    ('我一般晚上12点半才睡。',
     '这阵子一到十一点就困得不行，倒头就着。',
     '我这段时间一般什么时候上床休息？'),
    ('我女朋友叫小雨，在上海读研。',
     '周末带阿琳回家见我爸妈了，紧张死了。',
     '我现在的对象是谁？'),
]
# a fifth dev set, written like the fourth (by someone who had not read the engine),
# after the held-out one was reported
EN_DEV5: list[tuple[str, str, str]] = [
    ("I sing alto in the St. Brigid's parish choir, and we rehearse on Thursday evenings.",
     "Choir practice is on Tuesday nights at the community hall these days, after the parish sold "
     "the old building.",
     "Which night of the week do I need to keep free for singing?"),
    ("My dentist is Dr. Okafor over on Elm Street.",
     "Dr. Lindqvist at the Riverside clinic did my cleaning last week and she was great, so she's "
     "my regular dentist going forward.",
     "Who should I call to schedule my next checkup for my teeth?"),
    ("The big plant in my living room is a fiddle-leaf fig I've had for three years.",
     "The fiddle-leaf finally gave up, so I replaced it with a monstera that's already pushing "
     "out a fresh leaf.",
     "What kind of plant is sitting in the corner of my lounge?"),
    ("My board game group meets at Dice & Brew every other Saturday.",
     "We've moved game nights to Priya's apartment because Dice & Brew shut down.",
     "Where does my tabletop crew get together?"),
    ("I do all my banking with Chase.",
     "I opened an account at Ally for the better interest rate and closed out my Chase checking.",
     "Which bank is my money sitting in?"),
    ("The only streaming service we pay for is Netflix.",
     "We cancelled Netflix and kept just Max, since that's where all the shows we actually watch "
     "ended up.",
     "What are we subscribed to for watching shows at home?"),
    ("I'm on nights at the hospital Monday through Wednesday.",
     "My night shifts are Friday, Saturday and Sunday for the rest of the quarter.",
     "Which days am I working overnight?"),
    ("My favourite bakery is Le Petit Four on Main; their almond croissants are unbeatable.",
     "Honestly the best croissants in town are at Hearth & Crumb by the train station; I go every "
     "Saturday.",
     "Where's my go-to spot for pastries?"),
    ("My son Eli goes to Maple Grove Elementary.",
     "Eli started at Brookside Montessori this fall after we moved across town.",
     "What school is Eli enrolled in?"),
    ("My Spanish tutor is Marisol and we do Zoom lessons on Mondays.",
     "My Spanish lessons with Javier on Wednesdays are going really well; he's big on "
     "conversation practice.",
     "Who's helping me learn Spanish at the moment?"),
    ("My Corolla just passed 82,000 miles.",
     "Took the Corolla in for an oil change yesterday and the odometer read 91,400.",
     "Roughly how far has my car been driven so far?"),
    ("I take 50 mg of sertraline every morning.",
     "My doctor bumped my sertraline up to 100 mg at my last appointment.",
     "What dose of my antidepressant am I on at the moment?"),
    ("I'm usually in bed by 10:30 and up at 6.",
     "I've been going to sleep around midnight and getting up at 7:30 ever since I started "
     "working from home.",
     "When does my alarm usually go off in the morning?"),
    ("The podcast I never miss is Hardcore History.",
     "My commute podcast is Search Engine; I get through about one episode each way.",
     "What show do I listen to on my way to work?"),
    ("I grind my beans with a Baratza Encore.",
     "I finally gave in and got a Fellow Ode, and the Encore went to my brother.",
     "Which grinder is on my kitchen counter?"),
    ("My parking spot in the building garage is B14.",
     "Our parking space is C7, up on the top level of the garage.",
     "Where do I leave my car at my apartment building?"),
    ("We have one cat, a tabby named Pickles.",
     "Pickles went to live with my mom, who adores him, and we adopted a retired greyhound named "
     "Rocket.",
     "What pet is living with us at home?"),
    ("I lock my bike with a Kryptonite U-lock.",
     "My bike is secured with an Abus folding lock these days; it clips right onto the frame.",
     "What do I use to keep my bicycle from getting stolen?"),
    ("My phone plan is with Verizon.",
     "Actually, I got that wrong earlier: my phone plan is through Mint Mobile, Verizon is my "
     "husband's.",
     "Which mobile carrier am I on?"),
    ("My hair stylist is Tanya at Shear Genius.",
     "Got a cut from Marco at Fade Room on Saturday and he's the one I'm booking from here on.",
     "Who cuts my hair?"),
    ("My book club is reading Lessons in Chemistry this month.",
     "For book club we're halfway through Tomorrow, and Tomorrow, and Tomorrow.",
     "What novel is my reading group working through?"),
    ("My rent is $1,650 a month.",
     "The landlord raised the rent to $1,790 starting in March.",
     "How much do I pay for my apartment each month?"),
    ("I volunteer at the animal shelter on Sunday mornings.",
     "Sunday mornings I'm at the food bank sorting donations with my neighbor.",
     "What's my weekend volunteer gig?"),
    ("I'm vegetarian, but I still eat fish.",
     "We ended up going fully vegan in our house after my daughter's school project on factory "
     "farming.",
     "What kind of diet do I follow?"),
]

ZH_DEV5: list[tuple[str, str, str]] = [
    ("我一直在小区门口那家理发店找Tony老师剪头发。",
     "上周去了另一家店，找的阿杰剪的，比之前满意多了，以后就认他了。",
     "我现在一般找谁理发？"),
    ("我家宽带用的是电信的，300兆。",
     "家里宽带到期以后转成了联通的千兆套餐。",
     "我家的网络是哪家运营商的？"),
    ("女儿每周六上午在少年宫学钢琴。",
     "女儿周六上午去学游泳了，钢琴先停一停。",
     "我女儿周末上的是什么课？"),
    ("我养了一只橘猫，叫大福。",
     "大福送到我爸妈家养了，他们特别喜欢；我们又领养了一只狸花猫，叫芝麻。",
     "我家里养的是哪只猫？"),
    ("我每天早上吃一片二甲双胍，500毫克。",
     "复查之后医生让我二甲双胍早晚各吃一片。",
     "我的降糖药一天要吃几次？"),
    ("我的工资卡是招商银行的。",
     "公司换了代发银行，工资打到建设银行卡上了。",
     "我的工资发到哪家银行的卡里？"),
    ("我在单位的合唱团唱女高音。",
     "团长让我去唱女中音声部，说我的低音更稳。",
     "我在合唱团里负责哪个声部？"),
    ("我平时最爱喝的是西湖龙井。",
     "这阵子天天泡的是福鼎白茶，胃舒服多了。",
     "我最近常喝什么茶？"),
    ("我的牙一直在口腔医院王医生那里看。",
     "其实我之前说错了，帮我做根管的是李医生，王医生是我妈的主治。",
     "我的牙是哪位大夫在看？"),
    ("我上的是早班，早上六点到下午两点。",
     "这个月排到了夜班，晚上十点到第二天早上六点。",
     "我这阵子几点去上班？"),
    ("我用的是一台华为Mate 40。",
     "这些照片是用我的小米14拍的，效果还挺好。",
     "我手上用的是什么手机？"),
    ("我们桌游群每周五晚上在骰子咖啡聚。",
     "骰子咖啡关门了，桌游局挪到了老周家，周日下午开。",
     "桌游聚会在哪儿办？"),
]
# a sixth dev set: changes of everyday facts said in passing, mostly by sense alone
EN_DEV6: list[tuple[str, str, str]] = [
    ("I take 10 mg of lisinopril every morning for my blood pressure.",
     "Picked up the refill at the pharmacy and the 20 mg tablets are noticeably bigger, a pain to "
     "swallow first thing.",
     "How many milligrams of my BP medication am I on?"),
    ("My dad still drives trains for Northern, he says he'll do it till he drops.",
     "Dad's retirement do was lovely; he spent most of it telling everyone about the allotment "
     "he's planning to dig.",
     "Is my father still working, or what is he up to?"),
    ("I've been getting into watercolour painting on Sunday afternoons.",
     "Sunday afternoons I'm in a bee suit at the community apiary, checking the hives with an old "
     "guy called Clive.",
     "How do I usually spend my Sunday afternoons?"),
    ("My weekly one-to-one with my manager is on Monday mornings at 9.",
     "Sorry, Thursday at 2 won't work for the plumber, that's when I sit down with my boss for "
     "our weekly catch-up.",
     "When is my regular meeting with my line manager?"),
    ("Our flat is on the third floor of Calder House, on Mill Lane.",
     "Can you help me write a card for the couple next door at 22 Orchard Close? We've only been "
     "here a fortnight and they already brought round a lasagne.",
     "What's my home address?"),
    ("My motorbike is a 2015 Triumph Bonneville, my pride and joy.",
     "After selling the Bonneville I can't get over how light the Royal Enfield Himalayan "
     "feels on gravel tracks.",
     "Which motorcycle do I ride?"),
    ("We get a HelloFresh box delivered every Tuesday.",
     "Switched our meal kits over to Gousto, and the Friday box had a katsu curry the kids "
     "actually ate.",
     "Which company sends us our recipe boxes?"),
    ("I'm doing keto, so no bread or pasta for me at the moment.",
     "Had a huge bowl of pasta last night; the dietitian's Mediterranean plan is so much easier "
     "to stick to than keto ever was.",
     "What eating plan am I following?"),
    ("At work I'm leading the migration of our billing system to Stripe.",
     "Handed the billing migration to Karim last week. My whole focus is the customer onboarding "
     "redesign that launches in June, and the designers are already fighting over fonts.",
     "What project am I heading up at the office?"),
    ("I write all my notes in Notion, it's basically my second brain.",
     "My Obsidian vault is up to about 900 markdown files and the graph view is gorgeous.",
     "Which app do I keep my notes in?"),
    ("My daughter Maya does gymnastics on Wednesdays after school.",
     "Maya came home from fencing on Wednesday with a bruise on her arm and a massive grin.",
     "What does Maya do midweek once school lets out?"),
    ("My son Leo is in Year 4 and his teacher is Mrs Harding.",
     "Leo's new teacher, Mr Osei, sent home a lovely note about his reading.",
     "Who is Leo's class teacher?"),
    ("We're going to Lisbon for our tenth anniversary in October.",
     "Can you suggest some day trips from Kyoto? The anniversary trip is booked for October and "
     "Lisbon can wait till next year.",
     "Where are we heading for our anniversary?"),
    ("We keep three hens in the back garden, they give us plenty of eggs.",
     "A fox got into the coop last week and we lost one, so it's just the two girls laying.",
     "How many chickens do we have left?"),
    ("I put £200 a month into my pension on top of the employer match.",
     "Upped my pension contributions to £350 a month now that the pay rise has gone through.",
     "How much am I paying into my retirement pot each month?"),
    ("My sister Hannah is engaged to a guy called Rob.",
     "After Hannah and Rob split, she met Dev at a friend's barbecue, and they're getting married "
     "in August. I'm already panicking about my speech.",
     "Who is my sister going to marry?"),
    ("Our washing machine is an ancient Bosch that rattles like mad on spin.",
     "The Miele does a full load in under an hour, honestly the best thing we bought this year.",
     "What brand is our washer?"),
    ("I play in goal for a five-a-side team on Tuesday nights.",
     "Since my knee op the lads have stuck me up front for five-a-side, which means a lot less "
     "diving at least.",
     "What position do I play in my Tuesday football?"),
    ("I'm learning Portuguese because my partner's family is from Porto.",
     "My Korean flashcards are all over the fridge, and I managed to order bibimbap in Korean "
     "last weekend.",
     "Which language am I trying to pick up?"),
    ("My physio has me doing the knee exercises three times a week.",
     "The physio signed me off yesterday, so the rehab routine is just a once-a-week maintenance "
     "session.",
     "How often am I supposed to do my leg rehab workouts?"),
    ("I'm in the office Tuesdays and Thursdays and at home the rest of the week.",
     "The hybrid policy got tightened, so it's Monday to Thursday at my desk in town now and only "
     "Friday at home.",
     "Which days do I have to go in to work?"),
    ("My grandmother lives in a care home in Derby.",
     "Took Gran out for tea near her place in Whitby on Sunday; she insisted on fish and chips on "
     "the pier even though it was freezing. The staff there all call her by name already.",
     "Where is my nan living?"),
    ("My husband teaches chemistry at a secondary school.",
     "My husband's first month at the pharmaceutical lab has been hectic, he's on his feet all "
     "day but says it beats marking homework. He even came home wearing his lanyard yesterday.",
     "What does my other half do for a living?"),
    ("I'm reading my way through all the Discworld books in order.",
     "Finished the last Discworld book and cried, so I've started on Le Guin's Earthsea.",
     "Which series of novels am I working through?"),
]

ZH_DEV6: list[tuple[str, str, str]] = [
    ("我甲减，每天早上空腹吃半片优甲乐。",
     "上周复查甲功，医生说指标还是偏高，让我每天吃一整片优甲乐。",
     "我的甲状腺药一天吃多少？"),
    ("我爸妈住在洛阳老家，我一般一个月回去看他们一次。",
     "我妈在我家楼下跳广场舞认识了好几个阿姨，看来在深圳住得挺习惯。",
     "我父母目前住在哪儿？"),
    ("儿子每周三放学后去少年宫练书法。",
     "周三下午去接儿子，他刚在校篮球队训练完，晒得黢黑，一上车就喊饿。",
     "我儿子每周三下课后去干嘛？"),
    ("我每天骑电瓶车上班，路上二十分钟左右。",
     "三号线开通之后，我每天在车厢里刷两集剧正好到公司楼下。",
     "我平时怎么去公司？"),
    ("我这季度在负责公司App会员体系的改版。",
     "会员那摊子交给小刘了，领导让我全力盯海外版上线，下个月还要去吉隆坡出差。"
     "这两周天天跟产品开会开到晚上九点。",
     "我手头主要在跟哪个项目？"),
    ("我在做16:8轻断食，每天中午12点到晚上8点之间吃饭。",
     "营养师说我血糖波动太大，让我一日三餐按时吃，早饭一定要有鸡蛋和粗粮。",
     "我目前的吃饭安排是怎样的？"),
    ("我写代码一直用VS Code。",
     "Cursor里的AI补全太香了，VS Code已经好几个礼拜没打开过。",
     "我平时用什么编辑器写程序？"),
    ("五一打算和老公去厦门玩几天。",
     "五一的民宿订在大理古城里了，老公说厦门人太多，留到明年再说。",
     "我们五一去哪儿玩？"),
    ("家里养了两只仓鼠，女儿特别宝贝它们。",
     "有一只仓鼠上个月老死了，现在笼子里就剩一只，女儿哭了好几天。",
     "我家那几只小宠物还有多少？"),
    ("我每个月定投2000块沪深300指数基金。",
     "年终奖发了以后我把定投加到每月3000了。",
     "我每月往基金里投多少钱？"),
    ("家里的扫地机器人是科沃斯的。",
     "石头那台扫拖一体机确实省心，地板拖得锃亮，之前那台送给我姐了。",
     "我家用的是哪个牌子的扫地机？"),
    ("我在自学日语，准备明年考N2。",
     "N2考过之后日语就放下了，最近每天晚上跟着B站视频学韩语，四十个字母总算认全了。"
     "周末还约了个韩国留学生互相练口语。",
     "我目前在学哪门外语？"),
]

# written the same way as dev6, apart from it, after the knobs chosen on dev6: reported
"""A second held-out set of knowledge updates, written without reading the engine."""

# (old statement, new statement, question about now)
EN_HELD2: list[tuple[str, str, str]] = [
    ("My glasses prescription is -2.25 in both eyes.",
     "The optometrist says my eyes have got worse, so it's -3.00 on both sides now.",
     "What strength are my lenses these days?"),
    ("I catch the 7:52 train from Hadley Junction every morning.",
     "Been on the 8:17 out of Hadley Junction all month, and the extra twenty-five minutes in "
     "bed is glorious.",
     "Which departure do I take to get in for work?"),
    ("My sister Naomi is studying law in Edinburgh.",
     "Naomi's loving her first job at a firm in Manchester. She rang last night to complain that "
     "the rain is even worse than in Scotland, but she sounds really happy.",
     "Which city is Naomi living in at the moment?"),
    ("Our flat is on the third floor and there's no lift.",
     "We moved into a ground-floor place in March, so no more hauling the shopping up three "
     "flights.",
     "What level of the building is our home on now?"),
    ("My manager is Deborah, she's pretty hands-off.",
     "Had my first one-to-one with Raj since he took over the team. He wants weekly check-ins "
     "and a shared tracker, which is a lot after years of being left alone.",
     "Who do I report to at work?"),
    ("I'm doing a part-time MSc in data science at Birkbeck.",
     "I've transferred my master's to the Open University so I can study fully online.",
     "Which institution am I doing my postgrad through currently?"),
    ("I put £300 a month into my savings account.",
     "I've upped the standing order to savings, it's £450 a month now.",
     "How much do I set aside each month?"),
    ("Our Friday takeaway is always from Golden Lotus, the Chinese place on the corner.",
     "Friday night means a lamb biryani from Spice Route on the sofa, non-negotiable at this "
     "point.",
     "Where do we usually order in from at the end of the week?"),
    ("Our cat Mochi eats Purina dry food.",
     "The vet put Mochi on a prescription kidney diet from Hill's, so that's all she gets now.",
     "What is Mochi being fed these days?"),
    ("I do everything on a 2017 MacBook Air.",
     "My ThinkPad X1 boots in about four seconds. I keep restarting it just to watch.",
     "What computer am I working on?"),
    ("We're going to Lisbon for our anniversary in September.",
     "We changed the anniversary trip: it's Copenhagen instead, because the Lisbon flights "
     "doubled in price.",
     "Where are the two of us off to this autumn?"),
    ("My go-to karaoke song is Dancing Queen.",
     "Bohemian Rhapsody is my karaoke party piece, and nobody else at work is allowed to pick it.",
     "What do I usually sing when we do singalongs at the bar?"),
    ("My physio appointments for my knee are Tuesdays at 4 with Hannah.",
     "Physio has moved to Friday mornings at 9, since Hannah's cut back her hours.",
     "When do I see Hannah each week at the moment?"),
    ("My pub quiz team plays at the Crown every Wednesday night.",
     "We finally won a quiz at the Fox & Hounds on Wednesday! Their questions suit us way better "
     "than the Crown's ever did, and the chips are free for the winners.",
     "Which pub do we do trivia night at?"),
    ("My goal this year is to read 20 books.",
     "I've raised my reading target to 35 since I'm so far ahead of schedule.",
     "How many titles am I trying to get through before December?"),
    ("I see my therapist every two weeks, on alternate Mondays.",
     "Therapy every single Monday is tiring, but I can already feel the difference.",
     "How often am I seeing my counsellor currently?"),
    ("My son Theo does judo on Saturday mornings.",
     "Theo switched from judo to fencing, he's obsessed with the masks.",
     "What does Theo do on weekend mornings now?"),
    ("We rent a two-bed terrace in Stockport.",
     "Got the keys to our very own semi in Cheadle on Friday. The mortgage is terrifying, but "
     "the garden is ours and the kids have already claimed the shed.",
     "Where do we live?"),
    ("I work from the office Monday to Friday.",
     "Work's gone hybrid, so I'm only in on Tuesdays and Thursdays now.",
     "Which days am I expected to go in?"),
    ("I put 5% of my salary into my pension.",
     "Checked my payslip and 8% going into the pension looks scary, but future me will be "
     "grateful.",
     "What percentage of my wages goes toward retirement?"),
    ("I'm doing intermittent fasting, eating between 12 and 8.",
     "I've tightened my eating window to 1 till 7 now.",
     "Between what hours do I have my meals these days?"),
    ("My password manager is LastPass.",
     "Bitwarden autofilled my work login on the first try, which is more than LastPass ever "
     "managed.",
     "What app keeps my logins safe?"),
    ("Our wedding is booked for 14 June next year at Hollins Hall.",
     "We've pushed the wedding back to 20 September so my gran can fly over from Canada.",
     "What's the date of our big day?"),
    ("I'm learning chess and I'm rated about 1100 on Lichess.",
     "Hit 1340 on Lichess after a good weekend of blitz, the Sicilian is finally clicking.",
     "What's my rating on the chess site right now?"),
]

ZH_HELD2: list[tuple[str, str, str]] = [
    ("我每天坐地铁2号线上班，单程差不多一个小时。",
     "每天早上骑电瓶车穿过两条街就到单位了，十分钟都用不了。",
     "我平时通勤靠什么？"),
    ("我爸妈住在洛阳老家，我一年回去两次。",
     "爸妈现在搬来苏州跟我们一起住了，正好帮忙带孩子。",
     "我父母目前在哪儿生活？"),
    ("我腰椎间盘突出，每周去中医院做两次针灸。",
     "针灸停了，现在换成每周去做一次推拿。",
     "我这阵子腰疼是怎么治的？"),
    ("我在备考注会，今年报了会计和税法两科。",
     "审计和经济法的书堆了一桌子，今年这两门必须拿下。",
     "我今年CPA考的是哪几门？"),
    ("我每个月定投基金2000块。",
     "基金定投我调到每月3000了。",
     "我每个月固定拿多少钱去理财？"),
    ("我早餐一般是煎饼果子加一杯豆浆。",
     "燕麦泡酸奶再撒点蓝莓，这一周早上都是这么对付的。说实话还挺顶饱，到中午都不饿。",
     "我最近早上都吃点啥？"),
    ("我在练书法，临的是颜真卿的《多宝塔碑》。",
     "《多宝塔》临得差不多了，老师让我改临王羲之的《兰亭序》。",
     "我现在练字用的是哪本帖？"),
    ("我们公司实行大小周，隔一周要上六天班。",
     "公司取消大小周了，现在每周都是双休。",
     "我周六还用去上班吗？"),
    ("我家新房装修定的是北欧风。",
     "设计师改完图纸，客厅全是原木色加竹编灯，榻榻米也做上了，妥妥的日式侘寂味。",
     "我家装修最后走的什么风格？"),
    ("我约了下周三上午去医院做胃镜。",
     "胃镜改到下个月8号了，医院那边排不开。",
     "我那个检查现在约在哪天？"),
    ("我儿子读小学三年级，班主任是刘老师。",
     "开家长会的时候陈老师一直夸他数学进步快，说他上课举手特别积极。儿子回家乐了一晚上。",
     "现在带我儿子那个班的是哪位老师？"),
    ("我平时都是用Kindle看书。",
     "最近睡前都抱着掌阅的墨水屏看网文，字调大了一点也不伤眼。",
     "我这阵子用什么设备读电子书？"),
]

SPLITS = {"test": (EN, ZH), "dev": (EN_DEV, ZH_DEV), "dev2": (EN_DEV2, ZH_DEV2),
          "dev3": (EN_DEV3, ZH_DEV3), "dev4": (EN_DEV4, ZH_DEV4),
          "dev5": (EN_DEV5, ZH_DEV5), "dev6": (EN_DEV6, ZH_DEV6),
          "held": (EN_HELD, ZH_HELD), "held2": (EN_HELD2, ZH_HELD2)}

FILLER_EN = [
    "Can you explain how a Python generator differs from a list comprehension?",
    "Could you draft a polite email declining a meeting invitation next week?",
    "What's a good way to structure a 10 minute talk about code review?",
    "Please suggest three vegetarian dinners that take under 30 minutes.",
    "How do I make a pivot table in a spreadsheet that sums by month?",
    "Can you help me write a birthday message for a colleague who is leaving?",
    "What are the pros and cons of index funds versus picking stocks?",
    "Give me a packing list for a weekend of camping in the mountains.",
    "How should I prepare for a system design interview in two weeks?",
    "Could you summarise the main ideas of stoicism in a few paragraphs?",
    "What is a gentle stretching routine for after a long day at the desk?",
    "Help me plan a budget-friendly day out in the city with two kids.",
    "Can you rewrite this sentence to sound less formal: we regret to inform you?",
    "How do I get rid of fruit flies in the kitchen?",
    "Explain the difference between TCP and UDP like I'm new to networking.",
    "What are some good questions to ask at the end of a job interview?",
    "Can you recommend a few podcasts about history for a long drive?",
    "How long should I boil an egg for a jammy yolk?",
    "Suggest a name for a small pottery side business.",
    "What's the best way to learn touch typing as an adult?",
]
FILLER_ZH = [
    "能帮我解释一下Python里生成器和列表推导式的区别吗？",
    "帮我写一封婉拒下周会议邀请的邮件。",
    "推荐三道半小时内能做好的素菜。",
    "表格里怎么做一个按月汇总的数据透视表？",
    "给一位要离职的同事写一段告别的话。",
    "指数基金和自己挑股票各有什么利弊？",
    "周末去山里露营需要带些什么？",
    "两周后有系统设计面试，我该怎么准备？",
    "下班后有什么简单的拉伸动作？",
    "厨房里的果蝇怎么处理？",
    "用通俗的话讲讲TCP和UDP的区别。",
    "推荐几个适合开长途车时听的历史播客。",
]
WRAP_EN = ["Quick question about something else first. {s} Anyway, {f}",
           "{f} (Unrelated: {s})", "Some context: {s} Now, {f}", "{f} By the way, {s}"]
WRAP_ZH = ["先说点别的：{s}言归正传，{f}", "{f}（题外话：{s}）", "补充一下背景：{s}{f}"]

PER_USER = 6
MESSAGES = 40
DAYS = 120
START = datetime(2025, 1, 6, 9, 0, tzinfo=UTC)
VARIANTS: dict[str, dict[str, Any]] = {
    "default": {},
    "-facet lift": {"facet_lift": 0.0},
    "-newer versions": {"version_depth": 0},
    "-facet order": {"facet_order": False},
    "-facet words": {"facet_words": False},
    "-now band": {"now_band": 0.0},
    "-now standouts": {"now_gap": 0.0},
    "-newer kin": {"kin": False},
    "-successors": {"successors": 0},
    "-requests": {"request_weight": 0.0},
    "-all nine": {"facet_lift": 0.0, "facet_order": False, "facet_words": False,
                  "now_band": 0.0, "now_gap": 0.0, "version_depth": 0, "kin": False,
                  "successors": 0, "request_weight": 0.0},
    "default again": {},  # its time with the sentences embedded by the first run cached
}


@dataclass
class Message:
    id: str
    content: str
    at: datetime


@dataclass
class Case:
    user: str
    question: str
    old: str  # message ids
    new: str


def build(lang: str, seed: int, split: str = "test"
          ) -> tuple[dict[str, list[Message]], list[Case]]:
    """Users' histories: six changes each, the old version in the first third, the new in
    the last, filler requests around them."""
    rng = random.Random(seed)
    en, zh = SPLITS[split]
    facts, filler, wraps = (en, FILLER_EN, WRAP_EN) if lang == "en" else (zh, FILLER_ZH,
                                                                          WRAP_ZH)
    users: dict[str, list[Message]] = {}
    cases: list[Case] = []
    for u in range(len(facts) // PER_USER):
        user = f"ku-{split}-{lang}-{u}"
        mine = facts[u * PER_USER:(u + 1) * PER_USER]
        slots = list(range(MESSAGES))
        olds = rng.sample(slots[: MESSAGES // 3], PER_USER)
        news = rng.sample(slots[2 * MESSAGES // 3:], PER_USER)
        said: dict[int, str] = {}
        for (old, new, question), i, j in zip(mine, olds, news, strict=True):
            said[i] = rng.choice(wraps).format(s=old, f=rng.choice(filler))
            said[j] = rng.choice(wraps).format(s=new, f=rng.choice(filler))
            cases.append(Case(user, question, f"{user}:m{i:02d}", f"{user}:m{j:02d}"))
        users[user] = [Message(f"{user}:m{n:02d}", said.get(n) or rng.choice(filler),
                               START + timedelta(days=n * DAYS / MESSAGES, minutes=n))
                       for n in range(MESSAGES)]
    return users, cases


def score(ranked: list[str], case: Case) -> dict[str, float]:
    top = ranked[:10]
    new_in, old_in = case.new in top, case.old in top
    return {"update": 1.0 if new_in and (not old_in or top.index(case.new) < top.index(
                case.old)) else 0.0,
            "new@1": 1.0 if top[:1] == [case.new] else 0.0,
            "both in 10": 1.0 if new_in and old_in else 0.0}


def mean(rows: list[dict[str, float]]) -> dict[str, float]:
    return {k: round(statistics.fmean(r[k] for r in rows), 3) for k in rows[0]}


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--seed", type=int, default=1, help="placement of messages (default 1)")
    p.add_argument("--split", choices=sorted(SPLITS), default="test",
                   help="test: the facts reported (default); dev to dev6: other facts, "
                        "for tuning; held, held2: written apart, for reporting only")
    p.add_argument("--json", type=Path, default=None,
                   help="default bench/results/knowledge_updates.json (test) or "
                        "knowledge_updates_<split>.json (the others)")
    p.add_argument("--verbose", "-v", action="store_true",
                   help="list the changes the default recall gets wrong")
    args = p.parse_args(argv)
    out = args.json or RESULTS / ("knowledge_updates.json" if args.split == "test"
                                  else f"knowledge_updates_{args.split}.json")

    from graphmem.bootstrap import build_service
    from graphmem.settings import Settings

    report = header("knowledge-updates")
    en, zh = SPLITS[args.split]
    report["config"] = {"seed": args.seed, "split": args.split, "per_user": PER_USER,
                        "messages": MESSAGES, "days": DAYS,
                        "cases": {"en": len(en), "zh": len(zh)}}
    results: dict[str, dict[str, dict[str, float]]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        service = build_service(Settings(data_dir=Path(tmp)))
        service.open()
        report["config"]["embedding_model"] = service.embedder.model_id
        gql = GraphQL(service)
        try:
            base = service._recaller.tuning
            for lang in ("en", "zh"):
                users, cases = build(lang, args.seed, args.split)
                for user, msgs in users.items():
                    gql(ADD, {"inputs": [{"userId": user, "content": m.content, "role": "user",
                                          "occurredAt": m.at.isoformat(), "sourceRef": m.id,
                                          "source": "chat", "kind": "message"}
                                         for m in msgs]})
                log(f"{lang}: {len(users)} users, {len(cases)} changes sent")
                reference = {u: (msgs[-1].at + timedelta(days=1)).isoformat()
                             for u, msgs in users.items()}
                for name, change in VARIANTS.items():
                    service._recaller.tuning = replace(base, **change)
                    rows, took = [], []
                    for case in cases:
                        started = time.perf_counter()
                        items = gql(RECALL, {"input": {
                            "userId": case.user, "query": case.question, "limit": 40,
                            "referenceTime": reference[case.user]}})["recall"]["items"]
                        took.append((time.perf_counter() - started) * 1000)
                        rows.append(score(refs_of(items), case))
                        if args.verbose and name == "default" and not rows[-1]["update"]:
                            ranked = refs_of(items)[:10]
                            log(f"  miss: {case.question} new@"
                                f"{ranked.index(case.new) if case.new in ranked else None} "
                                f"old@{ranked.index(case.old) if case.old in ranked else None}")
                    results.setdefault(lang, {})[name] = {
                        **mean(rows), "ms p50": round(statistics.median(took), 1)}
                service._recaller.tuning = base
                bm = []
                for case in cases:
                    msgs = users[case.user]
                    b = Baselines([m.id for m in msgs], [m.content for m in msgs],
                                  [[0.0] for _ in msgs], tokenizer=multilingual_tokens)
                    bm.append(score(b.rankings(case.question, [0.0])["bm25"], case))
                results[lang]["bm25"] = mean(bm)
        finally:
            gql.close()
            service.close()
    report["results"] = results
    head = ["lang", "recall", "update", "new@1", "both in 10", "ms p50"]
    rows_out = [[lang, name, r["update"], r["new@1"], r["both in 10"], r.get("ms p50", "")]
                for lang, by in results.items() for name, r in by.items()]
    print(table(head, rows_out))
    write_json(out, report)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
