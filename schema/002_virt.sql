-- foliobench results, version 2: whether a run was in a virtual machine
-- ("VM", from the CPU's hypervisor flag) or on bare metal ("bare metal"),
-- for the method sentence of changelog tables ("in a 32 vCPU VM").  Runs
-- recorded before this version say ''.
ALTER TABLE runs ADD COLUMN virt TEXT NOT NULL DEFAULT '';
