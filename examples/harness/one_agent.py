"""One agent, replayed offline and narrated: the parser on this folder's tasks.md."""

import asyncio
from pathlib import Path

from monologue_harness import AgentMode, ParserAgent, ParserContext

here = Path(__file__).parent
agent = ParserAgent(
    mode=AgentMode(kind="replay", store=here / "recordings"),
    on_narrative=lambda narrative: print("parser:", narrative.data["text"]),
)
context = ParserContext(tasks_markdown=(here / "tasks.md").read_text(), source_path="tasks.md")
parsed = asyncio.run(agent.execute(context))
print([(task.id, task.dependencies) for task in parsed.tasks])
