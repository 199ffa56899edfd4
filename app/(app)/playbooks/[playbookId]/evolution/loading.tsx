import { EvolutionSkeleton } from "@/components/evolution/evolution-view";

export default function Loading() {
  return <EvolutionSkeleton />;
}
