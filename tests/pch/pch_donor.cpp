// The executable that owns a kind's precompiled test header (tests/CMakeLists.txt); it is built,
// never run.
int main()
{
    return 0;
}
