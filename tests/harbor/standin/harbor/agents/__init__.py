"""TEST STAND-IN for Harbor (not Harbor): just enough of its interface to drive examples/harbor/claudius_agent.py in tests."""
