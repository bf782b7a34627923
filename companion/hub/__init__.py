"""Many tables, one hub: MQTT publisher and the hub page."""
