"""TEST STAND-IN for Harbor's AgentContext: the fields an installed agent fills after its run."""
from dataclasses import dataclass, field


@dataclass
class AgentContext:
    n_input_tokens: int | None = None
    n_output_tokens: int | None = None
    n_cache_tokens: int | None = None
    cost_usd: float | None = None
    metadata: dict = field(default_factory=dict)
