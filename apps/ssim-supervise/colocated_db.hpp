#pragma once
// ssim-supervise --colocated-db: an entity's own database on each of its nodes
// (colocated_db.cpp).
int colocated_db_main(int argc, char** argv);
