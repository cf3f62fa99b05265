"""A FastMCP server (the `mcp` package's FastMCP, Python) for scripts/mcp_real_servers.sh:
typed parameters with constraints (pydantic Field, one a Python-only pattern), a structured
result, an image, progress, and a question (elicitation) — schemas and behaviour nobody here
wrote."""

from typing import Annotated, Literal

from mcp.server.fastmcp import Context, FastMCP, Image
from pydantic import BaseModel, Field

mcp = FastMCP("fastmcp-demo")


class Forecast(BaseModel):
    city: str
    celsius: float
    conditions: list[str]


@mcp.tool()
def forecast(city: Annotated[str, Field(min_length=2, max_length=40)],
             days: Annotated[int, Field(ge=1, le=7)] = 1) -> Forecast:
    """A forecast for a city."""
    return Forecast(city=city, celsius=18.5, conditions=["dry"] * days)


@mcp.tool()
def order(items: list[dict[str, int]], priority: Literal["low", "high"] = "low",
          note: str | None = None) -> str:
    """Places an order of items (name to quantity)."""
    return f"{len(items)} item(s), {priority} priority" + (f": {note}" if note else "")


@mcp.tool()
def price(amount: Annotated[float, Field(multiple_of=0.01)]) -> str:
    """Sets a price in cents' steps: `multipleOf: 0.01`, which 19.99 and 5 meet."""
    return f"price {amount}"


@mcp.tool()
def find_sku(sku: Annotated[str, Field(pattern=r"(?i)^sku-\d+$")]) -> str:
    """Finds a product by SKU. The pattern is Python's (pydantic's), no ECMA-262 one."""
    return f"found {sku}"


@mcp.tool()
def pixel() -> Image:
    """A one-pixel PNG."""
    png = bytes.fromhex("89504e470d0a1a0a0000000d4948445200000001000000010806000000"
                        "1f15c4890000000d49444154789c6360000002000154a24f5d0000000049454e44ae426082")
    return Image(data=png, format="png")


@mcp.tool()
async def countdown(n: Annotated[int, Field(ge=1, le=5)], ctx: Context) -> str:
    """Counts down, reporting progress."""
    for step in range(n):
        await ctx.report_progress(step + 1, n, "counting")
    return "liftoff"


class Confirm(BaseModel):
    confirm: bool


@mcp.tool()
async def wipe(table: str, ctx: Context) -> str:
    """Wipes a table, after asking."""
    answer = await ctx.elicit(f"Wipe {table}?", schema=Confirm)
    return f"{answer.action}: {getattr(answer, 'data', None)}"


if __name__ == "__main__":
    mcp.run()
