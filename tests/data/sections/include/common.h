static const int common_value = 2;
