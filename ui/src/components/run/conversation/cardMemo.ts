// A card's diff and summary, worked out once per card (lib/ui/perItem.ts):
// parsing an edit's diff or counting a read's lines each time a slot of the
// windowed conversation shows the card again was part of every scrolled frame.
import { cardDiff, cardSummary } from "../../../lib/runs/toolCards";
import { perItem, perItemWith } from "../../../lib/ui/perItem";

export const cardDiffOf = perItem(cardDiff);
export const cardSummaryOf = perItemWith(cardSummary);
