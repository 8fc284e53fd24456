"""Local load runs with TechEmpower's method: scenarios/run.sh runs this package (python3 scenarios/loadrun)."""
