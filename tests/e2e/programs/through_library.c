/*
 * A program that calls Portals only through a library it links
 * (through_library_lib.c): it includes no portals4.h and imports no Ptl
 * function, as an OpenSHMEM program built with oshcc.
 */
int through_library_ring(void);

int main(void)
{
    return through_library_ring();
}
