// Whether a provider's model reads images: the backend decides by model
// family unless the user says yes or no (`vision` null / true / false).

export type VisionChoice = "auto" | "yes" | "no";

export const VISION_CHOICES: { value: VisionChoice; label: string }[] = [
  { value: "auto", label: "By model family (default)" },
  { value: "yes", label: "Yes" },
  { value: "no", label: "No" },
];

export function visionToForm(vision: boolean | null | undefined): VisionChoice {
  if (vision == null) return "auto";
  return vision ? "yes" : "no";
}

export function visionFromForm(choice: VisionChoice): boolean | null {
  return choice === "auto" ? null : choice === "yes";
}

/** The provider list's line about images. */
export function visionLabel(vision: boolean | null | undefined): string {
  if (vision == null) return "images: as its model family";
  return vision ? "reads images" : "does not read images";
}
