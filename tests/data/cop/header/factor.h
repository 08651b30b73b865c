#pragma once
#define FACTOR 2
